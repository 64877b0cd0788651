import path from 'node:path';
import { z } from 'zod';

const int = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .optional()
    .transform((v) => v ?? fallback);

const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => (v === undefined ? fallback : v === 'true' || v === '1'));

const list = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );

/** Every environment variable the service reads, validated once at start-up. */
const envSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: int(0, 65535, 8443),
  /** Optional plain-HTTP listener: answers every request with a problem unless it came through a trusted TLS proxy. */
  HTTP_PORT: int(0, 65535, 0).optional(),
  BASE_URL: z.url().optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  DATABASE_POOL_SIZE: int(1, 100, 10),
  /** PostgreSQL: a query unanswered this long fails with 503 and its connection is dropped (0: no limit). */
  DATABASE_QUERY_TIMEOUT_MS: int(0, 3_600_000, 30_000),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  TLS_CERT_FILE: z.string().min(1).optional(),
  TLS_KEY_FILE: z.string().min(1).optional(),
  /** Comma-separated proxy addresses or CIDRs whose X-Forwarded-Proto/-For headers are trusted. */
  TRUSTED_PROXIES: list,
  /** Secret that keys the API-key hash (HMAC). Generated into DATA_DIR when absent. */
  SERVER_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  KEY_ROTATION_GRACE_SECONDS: int(0, 7 * 24 * 3600, 24 * 3600),
  RATE_LIMIT_PER_MINUTE: int(1, 600, 60),
  KEY_RATE_LIMIT_PER_MINUTE: int(1, 600, 60),
  AUTH_FAILURES_PER_MINUTE_PER_IP: int(1, 10_000, 60),
  AUTH_FAILURES_PER_MINUTE_PER_PREFIX: int(1, 10_000, 30),
  BODY_LIMIT_BYTES: int(1024, 10 * 1024 * 1024, 64 * 1024),
  PROBES_PER_MINUTE_PER_IP: int(1, 10_000, 30),
  WEBHOOK_TIMEOUT_MS: int(100, 60_000, 10_000),
  /** Allow http:// webhook targets (local development only). */
  WEBHOOK_ALLOW_HTTP: bool(false),
  /** Allow private, loopback and link-local webhook targets (local development only). */
  WEBHOOK_ALLOW_PRIVATE_TARGETS: bool(false),
  WEBHOOK_MAX_SUBSCRIPTIONS: int(1, 1000, 25),
  WEBHOOK_SECRET_ROTATION_GRACE_SECONDS: int(0, 7 * 24 * 3600, 24 * 3600),
  WEBHOOK_LOG_RETENTION_DAYS: int(1, 3650, 30),
  /** Run the delivery worker inside the API process (turn off when running separate `worker` processes). */
  WORKER_IN_PROCESS: bool(true),
  WORKER_CONCURRENCY: int(1, 1000, 50),
  /** Dashboard sessions end after this long unused (default 12 h) or this long after sign-in (default 7 days). */
  DASHBOARD_SESSION_IDLE_SECONDS: int(60, 7 * 24 * 3600, 12 * 3600),
  DASHBOARD_SESSION_ABSOLUTE_SECONDS: int(300, 30 * 24 * 3600, 7 * 24 * 3600),
  DASHBOARD_LOGIN_FAILURES_PER_MINUTE_PER_IP: int(1, 10_000, 10),
  DASHBOARD_LOGIN_FAILURES_PER_MINUTE_PER_EMAIL: int(1, 10_000, 5),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DEMO_SEED: bool(true),
  // Provider and outbound calls (issue 4)
  /** The upstream voice provider; only the built-in simulator for now. */
  PROVIDER: z.enum(['simulator']).default('simulator'),
  /** Simulator fault injection: `unavailable` fails every API call, `slow` delays each by PROVIDER_SLOW_MS. */
  PROVIDER_FAULT: z.enum(['none', 'unavailable', 'slow']).default('none'),
  PROVIDER_SLOW_MS: int(0, 120_000, 3000),
  /** How long a finished conversation's transcript reads as "still settling" (202 pending). */
  PROVIDER_SETTLE_SECONDS: int(0, 7200, 15),
  /** Simulated inbound calls per minute to random active assistants; default 2 in demo mode, else 0. */
  DEMO_INBOUND_CALLS_PER_MINUTE: int(0, 600, 0).optional(),
});

export type Config = {
  host: string;
  port: number;
  httpPort: number | undefined;
  baseUrl: string | undefined;
  dataDir: string;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  databaseQueryTimeoutMs: number;
  redisUrl: string | undefined;
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  trustedProxies: string[];
  serverSecret: string | undefined;
  keyRotationGraceSeconds: number;
  rateLimitPerMinute: number;
  keyRateLimitPerMinute: number;
  authFailuresPerMinutePerIp: number;
  authFailuresPerMinutePerPrefix: number;
  bodyLimitBytes: number;
  probesPerMinutePerIp: number;
  webhookTimeoutMs: number;
  webhookAllowHttp: boolean;
  webhookAllowPrivateTargets: boolean;
  webhookMaxSubscriptions: number;
  webhookSecretRotationGraceSeconds: number;
  webhookLogRetentionDays: number;
  workerInProcess: boolean;
  workerConcurrency: number;
  dashboardSessionIdleSeconds: number;
  dashboardSessionAbsoluteSeconds: number;
  dashboardLoginFailuresPerMinutePerIp: number;
  dashboardLoginFailuresPerMinutePerEmail: number;
  logLevel: string;
  demoSeed: boolean;
  provider: 'simulator';
  providerFault: 'none' | 'unavailable' | 'slow';
  providerSlowMs: number;
  providerSettleSeconds: number;
  /** Undefined: decided by the entry point (demo mode or not). */
  demoInboundCallsPerMinute: number | undefined;
};

export class ConfigError extends Error {}

/** Parses the environment; every problem is listed, each naming its variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (Boolean(e.TLS_CERT_FILE) !== Boolean(e.TLS_KEY_FILE)) {
    throw new ConfigError('Invalid configuration:\n  TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  }
  return {
    host: e.HOST,
    port: e.PORT,
    httpPort: e.HTTP_PORT || undefined,
    baseUrl: e.BASE_URL?.replace(/\/+$/, ''),
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databaseQueryTimeoutMs: e.DATABASE_QUERY_TIMEOUT_MS,
    redisUrl: e.REDIS_URL,
    tlsCertFile: e.TLS_CERT_FILE,
    tlsKeyFile: e.TLS_KEY_FILE,
    trustedProxies: e.TRUSTED_PROXIES,
    serverSecret: e.SERVER_SECRET,
    keyRotationGraceSeconds: e.KEY_ROTATION_GRACE_SECONDS,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    keyRateLimitPerMinute: e.KEY_RATE_LIMIT_PER_MINUTE,
    authFailuresPerMinutePerIp: e.AUTH_FAILURES_PER_MINUTE_PER_IP,
    authFailuresPerMinutePerPrefix: e.AUTH_FAILURES_PER_MINUTE_PER_PREFIX,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    probesPerMinutePerIp: e.PROBES_PER_MINUTE_PER_IP,
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    webhookAllowHttp: e.WEBHOOK_ALLOW_HTTP,
    webhookAllowPrivateTargets: e.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    webhookMaxSubscriptions: e.WEBHOOK_MAX_SUBSCRIPTIONS,
    webhookSecretRotationGraceSeconds: e.WEBHOOK_SECRET_ROTATION_GRACE_SECONDS,
    webhookLogRetentionDays: e.WEBHOOK_LOG_RETENTION_DAYS,
    workerInProcess: e.WORKER_IN_PROCESS,
    workerConcurrency: e.WORKER_CONCURRENCY,
    dashboardSessionIdleSeconds: e.DASHBOARD_SESSION_IDLE_SECONDS,
    dashboardSessionAbsoluteSeconds: e.DASHBOARD_SESSION_ABSOLUTE_SECONDS,
    dashboardLoginFailuresPerMinutePerIp: e.DASHBOARD_LOGIN_FAILURES_PER_MINUTE_PER_IP,
    dashboardLoginFailuresPerMinutePerEmail: e.DASHBOARD_LOGIN_FAILURES_PER_MINUTE_PER_EMAIL,
    logLevel: e.LOG_LEVEL,
    demoSeed: e.DEMO_SEED,
    provider: e.PROVIDER,
    providerFault: e.PROVIDER_FAULT,
    providerSlowMs: e.PROVIDER_SLOW_MS,
    providerSettleSeconds: e.PROVIDER_SETTLE_SECONDS,
    demoInboundCallsPerMinute: e.DEMO_INBOUND_CALLS_PER_MINUTE,
  };
}
