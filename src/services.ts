import type { Logger } from 'pino';
import { assistantForAgent } from './assistants/agent-links.repository.ts';
import { createAssistantsService } from './assistants/assistants.service.ts';
import { createCallsService } from './calls/calls.service.ts';
import type { Clock } from './clock.ts';
import type { SecretBox } from './crypto/secret-box.ts';
import { createCustomersService } from './customers/customers.service.ts';
import { createDashboardServices } from './dashboard/dashboard.services.ts';
import type { Database } from './db/database.ts';
import type { Notifications } from './db/notifications.ts';
import type { SenderNetwork } from './delivery/http-sender.ts';
import { createAuthenticator } from './keys/authenticate.ts';
import { createKeyCache } from './keys/key-cache.ts';
import type { KeyHasher } from './keys/key-hash.ts';
import { createKeysOperator } from './keys/keys.operator.ts';
import { createKeysService } from './keys/keys.service.ts';
import { createLifecycleService } from './lifecycle/lifecycle.service.ts';
import { outboundCallReports } from './outbound/call-reports.ts';
import { createCallbackSecrets } from './outbound/callback-signing.ts';
import { createOutboundService } from './outbound/outbound.service.ts';
import type { OutboundLimits } from './outbound-limits.ts';
import { createElevenLabsProvider } from './provider/elevenlabs/adapter.ts';
import { guardProvider } from './provider/guarded.ts';
import { createSimulator } from './provider/simulator.ts';
import type { Signer } from './signer.ts';
import { createTranscriptsService } from './transcripts/transcripts.service.ts';
import { createUsageService } from './usage/usage.service.ts';
import { createSubscriptionsService } from './webhooks/subscriptions.service.ts';
import { createWebhookEventsService } from './webhooks/webhook-events.service.ts';

/** Which upstream provider places and receives calls (PROVIDER); the simulator unless said. */
export type ProviderChoice =
  | { kind: 'simulator' }
  | { kind: 'elevenlabs'; apiKey: string; webhookSecret: string; baseUrl: string; timeoutMs: number };

export type CoreDeps = {
  db: Database;
  /** PROVIDER and its settings; the simulator when absent. */
  provider?: ProviderChoice | undefined;
  /** The simulated provider account whose calls this process drives; instances of a deployment share the default. */
  simulatorAccount?: string | undefined;
  /** The database handle's notifications: the key cache listens to them. */
  notifications: Notifications;
  clock: Clock;
  hasher: KeyHasher;
  signer: Signer;
  secretBox: SecretBox;
  logger: Logger;
  rotationGraceSeconds: number;
  defaultRateLimit: number;
  defaultKeyRateLimit: number;
  /** The outbound limits of customers the operator has not given their own (OUTBOUND_*_DEFAULT). */
  outboundDefaults: OutboundLimits;
  webhooks: {
    maxPerCustomer: number;
    allowHttpTargets: boolean;
    allowPrivateTargets: boolean;
    secretRotationGraceSeconds: number;
    /** Whole-exchange timeout of one send (WEBHOOK_TIMEOUT_MS), deliveries and dashboard test events alike. */
    timeoutMs: number;
    /** How the API process's own sends (dashboard test events) reach receivers; unset in production. */
    network?: SenderNetwork | undefined;
  };
};

/** The one domain layer: the HTTP API, the CLI and the dashboard all call these. */
export function createServices(deps: CoreDeps) {
  // The provider: the built-in simulator on the injected clock, behind a guard that turns every failure into a
  // value. The lifecycle reports each call's steps to outbound calls (callbacks, spend).
  const simulator = createSimulator({ db: deps.db, clock: deps.clock, account: deps.simulatorAccount });
  const choice = deps.provider ?? { kind: 'simulator' };
  const forAgent = (agentId: string) => assistantForAgent(deps.db, agentId);
  const elevenlabs =
    choice.kind === 'elevenlabs'
      ? {
          provider: createElevenLabsProvider({ ...choice, assistantForAgent: forAgent }),
          webhookSecret: choice.webhookSecret,
          assistantForAgent: forAgent,
        }
      : null;
  // The SDK times each request out itself (PROVIDER_TIMEOUT_MS); the guard is the backstop for a placement's two.
  const provider = guardProvider(elevenlabs?.provider ?? simulator, {
    logger: deps.logger,
    ...(choice.kind === 'elevenlabs' ? { timeoutMs: choice.timeoutMs * 2 } : {}),
  });
  const voice = { ...deps, provider };
  const keyCache = createKeyCache(deps);
  const usage = createUsageService(deps);
  return {
    customers: createCustomersService({ ...deps, onKeysChanged: () => keyCache.changed(null) }),
    keys: createKeysService({ ...deps, keyCache }),
    /** What only the operator's tools (the CLI) may do: act on any customer's objects. */
    operator: { keys: createKeysOperator({ ...deps, keyCache }) },
    assistants: createAssistantsService(deps),
    calls: createCallsService(deps),
    authenticator: createAuthenticator({ ...deps, keyCache }),
    simulator,
    /** ElevenLabs when PROVIDER=elevenlabs (its webhook route and reconciliation use it), else null. */
    elevenlabs,
    provider,
    lifecycle: createLifecycleService({ ...voice, reports: outboundCallReports }),
    outbound: createOutboundService({
      ...voice,
      requireAgentLink: elevenlabs !== null,
      keepUnconfirmed: elevenlabs !== null,
    }),
    transcripts: createTranscriptsService(voice),
    callbackSecrets: createCallbackSecrets(deps),
    subscriptions: createSubscriptionsService({ ...deps, ...deps.webhooks }),
    webhookEvents: createWebhookEventsService(deps),
    /** API requests per key per day (metering), counted by a hook the API registers. */
    usage,
    // Dashboard users, sessions, the usage report
    dashboard: createDashboardServices({ ...deps, usage }),
  };
}

export type Services = ReturnType<typeof createServices>;
