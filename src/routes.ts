import type { FastifyInstance } from 'fastify';
import { registerListAssistants } from './assistants/index.ts';
import { registerCallExport } from './call-export/index.ts';
import { registerDeleteCall, registerGetCall, registerListCalls } from './calls/index.ts';
import { registerWhoami } from './keys/index.ts';
import { registerCreateOutboundCall, registerDryRunOutboundCall } from './outbound/index.ts';
import type { Services } from './services.ts';
import { registerSmsRoutes } from './sms/index.ts';
import { registerTestInboundCalls } from './test-mode/index.ts';
import { registerTranscriptRoutes } from './transcripts/index.ts';
import { registerSubscriptionRoutes, registerWebhookEventRoutes } from './webhooks/index.ts';

/** Every /api/v1 route, registered explicitly so each one can be found by grep. */
export function registerApiRoutes(api: FastifyInstance, services: Services): void {
  // Authentication
  registerWhoami(api);

  // Read API: assistants, calls, call detail
  registerListAssistants(api, services.assistants);
  registerListCalls(api, services.calls);
  registerCallExport(api, services.callExport);
  registerGetCall(api, services.calls);
  // DELETE /calls/{id}: the call and everything carrying its content (docs/call-data.md)
  registerDeleteCall(api, services.callRemoval);

  // Outbound calls and transcripts: POST /outbound-calls, POST /outbound-calls/dry-run,
  // GET /calls/{id}/transcript, GET /outbound-calls/{id}/transcript
  registerCreateOutboundCall(api, services.outbound);
  registerDryRunOutboundCall(api, services.outbound);
  registerTranscriptRoutes(api, services.transcripts);

  // Webhooks: subscriptions, verification probe, secret rotation
  registerSubscriptionRoutes(api, services.subscriptions);
  registerWebhookEventRoutes(api, services.webhookEvents);

  // Text messages: POST /sms/send, POST /sms/send/dry-run, GET /sms/messages, GET /sms/messages/{id},
  // POST /test/inbound-sms
  registerSmsRoutes(api, services.sms);

  // Test mode: POST /test/inbound-calls
  registerTestInboundCalls(api, services.testInbound);
}
