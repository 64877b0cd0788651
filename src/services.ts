import type { Logger } from 'pino';
import { createAssistantsService } from './assistants/index.ts';
import { createCallExport } from './call-export/index.ts';
import { callListeners } from './call-listeners.ts';
import { createCallRemoval, createCallsService, createLifecycleService } from './calls/index.ts';
import type { Clock } from './clock.ts';
import type { SecretBox } from './crypto/index.ts';
import { createCustomersService, type RetentionBounds } from './customers/index.ts';
import { createDashboardServices } from './dashboard/index.ts';
import type { Database, Notifications } from './db/index.ts';
import { createBackgroundLane } from './db/index.ts';
import type { SenderNetwork } from './delivery/index.ts';
import { createAgentLinksService, createElevenLabs, type ElevenLabsSettings } from './elevenlabs/index.ts';
import type { KeyHasher } from './keys/index.ts';
import { createAuthenticator, createKeyCache, createKeysOperator, createKeysService } from './keys/index.ts';
import { createCallbackSecrets, createOutboundService } from './outbound/index.ts';
import type { OutboundLimits } from './outbound-limits.ts';
import { guardProvider, type ProviderObserver, type ProviderStatus } from './provider/index.ts';
import type { Signer } from './signer.ts';
import { createSimulator, createSmsSimulator } from './simulator/index.ts';
import { createSmsService, guardSmsProvider } from './sms/index.ts';
import { createTestInbound } from './test-mode/index.ts';
import { createTranscriptsService } from './transcripts/index.ts';
import { createTwilio, type TwilioSettings } from './twilio/index.ts';
import { createUsageService } from './usage/index.ts';
import {
  createSubscriptionsOperator,
  createSubscriptionsService,
  createWebhookEventsService,
} from './webhooks/index.ts';

/** Which upstream provider places and receives calls (PROVIDER); the simulator unless said. */
export type ProviderChoice = { kind: 'simulator' } | ({ kind: 'elevenlabs' } & ElevenLabsSettings);

export type CoreDeps = {
  db: Database;
  /** PROVIDER and its settings; the simulator when absent. */
  provider?: ProviderChoice | undefined;
  /** The simulated provider account whose calls this process drives; instances of a deployment share the default. */
  simulatorAccount?: string | undefined;
  /** Where the provider counts its requests and reconciliation passes (`/metrics`); nowhere in most tests. */
  providerObserver?: ProviderObserver | undefined;
  /**
   * SMS_PROVIDER=twilio's settings (absent: the simulator carries live messages too), the price of a segment
   * (SMS_PRICE_PER_SEGMENT_USD; default 0.0079) and how long one request to the carrier may take.
   */
  sms?:
    | { twilio?: TwilioSettings | undefined; pricePerSegmentUsd?: string | undefined; timeoutMs?: number }
    | undefined;
  /** TEST_MODE: `svc_test_` keys are accepted (absent: off; the configuration's default is on). */
  testMode?: boolean | undefined;
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
  /** CALL_RETENTION_DAYS_*: how long calls are kept, and the choices customers may make (absent: for ever). */
  callRetention?: RetentionBounds | undefined;
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

const SIMULATOR_STATUS: ProviderStatus = {
  current: () => ({ name: 'simulator', state: 'ok', checked_at: null, since: null, detail: null }),
  warning: () => null,
};

/** The one domain layer: the HTTP API, the CLI and the dashboard all call these. */
export function createServices(deps: CoreDeps) {
  // The provider: the built-in simulator on the injected clock, behind a guard that turns every failure into a
  // value. Calls report each call's steps to their listeners (events, callbacks, spend).
  const simulator = createSimulator({ db: deps.db, clock: deps.clock, account: deps.simulatorAccount });
  const choice = deps.provider ?? { kind: 'simulator' };
  const elevenlabs =
    choice.kind === 'elevenlabs'
      ? createElevenLabs({
          db: deps.db,
          clock: deps.clock,
          settings: choice,
          logger: deps.logger,
          observer: deps.providerObserver,
        })
      : null;
  const provider = guardProvider(elevenlabs?.provider ?? simulator, {
    logger: deps.logger,
    logFailures: !elevenlabs,
    ...(elevenlabs ? { timeoutMs: elevenlabs.guardTimeoutMs } : {}),
  });
  // Test-mode calls always go to the simulator, whatever PROVIDER says (providerForMode).
  const testProvider = elevenlabs ? guardProvider(simulator, { logger: deps.logger }) : provider;
  const voice = { ...deps, provider, testProvider };
  const keyCache = createKeyCache(deps);
  // Usage counts and keys' last uses are written every few seconds; one lane keeps their statements from crowding
  // requests' queries (src/db/background-lane.ts).
  const backgroundWrites = createBackgroundLane();
  const usage = createUsageService({ ...deps, backgroundWrites });
  const calls = createCallsService(deps);
  // Text messages: the simulator's carrier unless SMS_PROVIDER names another; test-mode messages always simulated.
  const smsSimulator = createSmsSimulator({ db: deps.db, clock: deps.clock, account: deps.simulatorAccount });
  const smsGuard = { timeoutMs: deps.sms?.timeoutMs ?? 10_000, logger: deps.logger };
  const twilio = deps.sms?.twilio
    ? createTwilio({
        settings: deps.sms.twilio,
        clock: deps.clock,
        logger: deps.logger,
        timeoutMs: smsGuard.timeoutMs,
      })
    : null;
  const smsTestProvider = guardSmsProvider(smsSimulator.provider, smsGuard);
  const sms = createSmsService({
    ...deps,
    provider: twilio ? guardSmsProvider(twilio.provider, smsGuard) : smsTestProvider,
    testProvider: smsTestProvider,
    pricePerSegmentUsd: deps.sms?.pricePerSegmentUsd ?? '0.0079',
  });
  const lifecycle = createLifecycleService({ ...voice, reports: callListeners() });
  return {
    customers: createCustomersService({ ...deps, onKeysChanged: () => keyCache.changed(null) }),
    keys: createKeysService({ ...deps, keyCache }),
    /** What only the operator's tools (the CLI) may do: act on any customer's objects. */
    operator: {
      keys: createKeysOperator({ ...deps, keyCache }),
      subscriptions: createSubscriptionsOperator(deps),
    },
    assistants: createAssistantsService(deps),
    /** Which ElevenLabs agent answers for an assistant (kept whichever provider runs, so links can be made first). */
    agentLinks: createAgentLinksService({ ...deps, lookups: elevenlabs?.lookups ?? null }),
    calls,
    /** DELETE /calls/{id} and the retention loop: deleting calls with everything of theirs, leaving tombstones. */
    callRemoval: createCallRemoval({ ...deps, reports: callListeners() }),
    /** GET /calls/export, the dashboard's download and the operator's `calls export`: one stream. */
    callExport: createCallExport(deps),
    authenticator: createAuthenticator({
      ...deps,
      keyCache,
      backgroundWrites,
      testMode: deps.testMode === true,
    }),
    simulator,
    /** Text messages (POST /sms/send, GET /sms/messages), and the simulated carrier the simulator's tick drives. */
    sms,
    smsSimulator,
    /** Twilio when SMS_PROVIDER=twilio (its callback routes, `provider check`, `sms numbers`), else null. */
    twilio,
    /** ElevenLabs when PROVIDER=elevenlabs (its webhook route and reconciliation use it), else null. */
    elevenlabs,
    provider,
    /** Which provider runs and, for ElevenLabs, what its last periodic check found (`/readyz`, the banner). */
    providerStatus: elevenlabs ? elevenlabs.health : SIMULATOR_STATUS,
    lifecycle,
    outbound: createOutboundService({
      ...voice,
      ...(elevenlabs ? { agentFor: elevenlabs.agentFor } : {}),
      keepUnconfirmed: elevenlabs !== null,
    }),
    transcripts: createTranscriptsService(voice),
    /** Test mode's simulated inbound calls (POST /test/inbound-calls). */
    testInbound: createTestInbound({
      db: deps.db,
      clock: deps.clock,
      simulator,
      lifecycle,
      calls,
    }),
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
