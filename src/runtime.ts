import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import { createSecretBox, type SecretBox } from './crypto/index.ts';
import type { RetentionBounds } from './customers/index.ts';
import type { DatabaseHandle } from './db/index.ts';
import { migrateToLatest } from './db/index.ts';
import { checkServerSecret, createKeyHasher } from './keys/index.ts';
import { createMetrics, type Metrics } from './ops/index.ts';
import type { RateLimiter } from './rate-limit/index.ts';
import { createMemoryLimiter, createRedisLimiter, REDIS_CLIENT_OPTIONS } from './rate-limit/index.ts';
import { generatedSecretFile, loadServerSecret } from './server-secret.ts';
import { createServices, type ProviderChoice, type Services } from './services.ts';
import { createSigner } from './signer.ts';
import { openStorage, type Storage } from './storage.ts';
import type { TwilioSettings } from './twilio/index.ts';

export type Runtime = {
  config: Config;
  database: DatabaseHandle;
  services: Services;
  secretBox: SecretBox;
  metrics: Metrics;
  limiter: RateLimiter;
  redis: Redis | null;
  clock: Clock;
  logger: Logger;
  close(): Promise<void>;
};

/** PROVIDER and its settings (config.ts checks that ElevenLabs' are all there). */
export function providerChoice(config: Config): ProviderChoice {
  if (config.provider !== 'elevenlabs') return { kind: 'simulator' };
  return {
    kind: 'elevenlabs',
    apiKey: config.elevenlabsApiKey ?? '',
    webhookSecret: config.elevenlabsWebhookSecret ?? '',
    baseUrl: config.elevenlabsBaseUrl,
    timeoutMs: config.providerTimeoutMs,
  };
}

/** SMS_PROVIDER=twilio's settings (config.ts checks that they are all there), else undefined. */
export function twilioSettings(config: Config): TwilioSettings | undefined {
  if (config.smsProvider !== 'twilio') return undefined;
  return {
    accountSid: config.twilioAccountSid ?? '',
    authToken: config.twilioAuthToken ?? '',
    messagingServiceSid: config.twilioMessagingServiceSid,
    apiBaseUrl: config.twilioApiBaseUrl,
    publicBaseUrl: config.publicBaseUrl ?? '',
  };
}

/** CALL_RETENTION_DAYS_DEFAULT, _MIN and _MAX (0: for ever, no longest), as the customers service takes them. */
export function retentionBounds(config: Config): RetentionBounds {
  return {
    defaultDays: config.callRetentionDaysDefault || null,
    minDays: config.callRetentionDaysMin,
    maxDays: config.callRetentionDaysMax || null,
  };
}

export type RuntimeOptions = {
  /** Storage already opening (main.ts starts it before loading the server's modules); else opened here. */
  opening?: Promise<Storage>;
  /** `server-secret adopt`: this process's secret is to replace the recorded one, so it is not checked. */
  adoptingServerSecret?: boolean;
};

/**
 * Opens storage (locking the embedded folder) unless it is already opening, migrates, refuses a server secret other
 * than the one the database was set up with, and wires the domain layer; shared by every entry point.
 */
export async function openRuntime(
  config: Config,
  clock: Clock,
  logger: Logger,
  options: RuntimeOptions = {},
): Promise<Runtime> {
  const storage = await (options.opening ?? openStorage(config));
  const { database } = storage;
  try {
    await migrateToLatest(database.db);
    const serverSecret = loadServerSecret(config.serverSecret, config.dataDir);
    if (!options.adoptingServerSecret) {
      const source = config.serverSecret
        ? 'SERVER_SECRET'
        : `generated into ${generatedSecretFile(config.dataDir)}, as SERVER_SECRET is not set`;
      await checkServerSecret(database.db, serverSecret, source);
    }
    const hasher = createKeyHasher(serverSecret);
    const secretBox = createSecretBox(serverSecret);
    // ioredis is loaded only when configured (about 70 ms of every start otherwise); through `default`, as
    // src/http/tls.ts says why.
    const redis = config.redisUrl
      ? new (await import('ioredis')).default.Redis(config.redisUrl, REDIS_CLIENT_OPTIONS)
      : null;
    // Errors surface on each command (and the limiter judges without Redis); the event only needs a listener.
    redis?.on('error', () => {});
    const limiter = redis ? createRedisLimiter(redis, logger) : createMemoryLimiter();
    const metrics = createMetrics();
    const services = createServices({
      providerObserver: metrics.provider,
      testMode: config.testMode,
      sms: {
        pricePerSegmentUsd: config.smsPricePerSegmentUsd,
        timeoutMs: config.providerTimeoutMs,
        twilio: twilioSettings(config),
      },
      db: database.db,
      provider: providerChoice(config),
      notifications: database.notifications,
      clock,
      hasher,
      signer: createSigner(serverSecret),
      secretBox,
      webhooks: {
        maxPerCustomer: config.webhookMaxSubscriptions,
        allowHttpTargets: config.webhookAllowHttp,
        allowPrivateTargets: config.webhookAllowPrivateTargets,
        secretRotationGraceSeconds: config.webhookSecretRotationGraceSeconds,
        timeoutMs: config.webhookTimeoutMs,
      },
      logger,
      rotationGraceSeconds: config.keyRotationGraceSeconds,
      defaultRateLimit: config.rateLimitPerMinute,
      defaultKeyRateLimit: config.keyRateLimitPerMinute,
      outboundDefaults: {
        countries: config.outboundCountriesDefault,
        maxDailyCapUsd: config.outboundMaxDailyCapDefault,
      },
      callRetention: retentionBounds(config),
    });
    return {
      config,
      database,
      services,
      secretBox,
      metrics,
      limiter,
      redis,
      clock,
      logger,
      async close() {
        await limiter.close();
        redis?.disconnect();
        await storage.close();
      },
    };
  } catch (error) {
    await storage.close();
    throw error;
  }
}
