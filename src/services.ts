import type { Logger } from 'pino';
import { createAssistantsService } from './assistants/assistants.service.ts';
import { createCallsService } from './calls/calls.service.ts';
import type { Clock } from './clock.ts';
import type { SecretBox } from './crypto/secret-box.ts';
import { createCustomersService } from './customers/customers.service.ts';
import { createDashboardServices } from './dashboard/dashboard.services.ts';
import type { Database } from './db/database.ts';
import { createAuthenticator } from './keys/authenticate.ts';
import type { KeyHasher } from './keys/key-hash.ts';
import { createKeysService } from './keys/keys.service.ts';
import { createVoiceServices } from './lifecycle/voice-services.ts';
import type { Signer } from './signer.ts';
import { createSubscriptionsService } from './webhooks/subscriptions.service.ts';
import { createWebhookEventsService } from './webhooks/webhook-events.service.ts';

export type CoreDeps = {
  db: Database;
  clock: Clock;
  hasher: KeyHasher;
  signer: Signer;
  secretBox: SecretBox;
  logger: Logger;
  rotationGraceSeconds: number;
  defaultRateLimit: number;
  defaultKeyRateLimit: number;
  webhooks: {
    maxPerCustomer: number;
    allowHttpTargets: boolean;
    allowPrivateTargets: boolean;
    secretRotationGraceSeconds: number;
  };
};

/** The one domain layer: the HTTP API, the CLI and the dashboard all call these. */
export function createServices(deps: CoreDeps) {
  return {
    customers: createCustomersService(deps),
    keys: createKeysService(deps),
    assistants: createAssistantsService(deps),
    calls: createCallsService(deps),
    authenticator: createAuthenticator(deps),
    // Provider, call lifecycle, outbound calls, transcripts (issue 4)
    ...createVoiceServices(deps),
    subscriptions: createSubscriptionsService({ ...deps, ...deps.webhooks }),
    webhookEvents: createWebhookEventsService(deps),
    // Dashboard users, sessions, usage counters (issue 6)
    dashboard: createDashboardServices(deps),
  };
}

export type Services = ReturnType<typeof createServices>;
