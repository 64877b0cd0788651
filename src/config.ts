import path from 'node:path';
import { z } from 'zod';
import {
  CAP_AMOUNT_MESSAGE,
  DEFAULT_OUTBOUND_LIMITS,
  formatCap,
  isCapAmount,
  normalizeRegions,
  unknownRegionMessage,
  unknownRegions,
} from './outbound-limits.ts';

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

const regions = (fallback: readonly string[]) =>
  list
    .transform(normalizeRegions)
    .superRefine((tokens, ctx) => {
      for (const token of unknownRegions(tokens)) {
        ctx.addIssue({ code: 'custom', message: unknownRegionMessage(token) });
      }
    })
    .transform((tokens) => (tokens.length > 0 ? tokens : [...fallback]));

const capAmount = (fallback: string) =>
  z.string().refine(isCapAmount, CAP_AMOUNT_MESSAGE).default(fallback).transform(formatCap);

/** Every environment variable the service reads, validated once at start-up. */
const envSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: int(0, 65535, 8443),
  /** Optional plain-HTTP listener: answers every request with a problem unless it came through a trusted TLS proxy. */
  HTTP_PORT: int(0, 65535, 0)
    .optional()
    .transform((v) => v || undefined),
  BASE_URL: z
    .url()
    .optional()
    .transform((v) => v?.replace(/\/+$/, '')),
  DATA_DIR: z
    .string()
    .min(1)
    .default('./data')
    .transform((v) => path.resolve(v)),
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
  /**
   * Calls, with everything that carries their content, are deleted this many days after they started, unless the
   * customer chose another period within the two bounds below (docs/call-data.md); unset or 0: kept for ever.
   */
  CALL_RETENTION_DAYS_DEFAULT: int(0, 36_500, 0),
  /** The shortest retention a customer may choose, in days. */
  CALL_RETENTION_DAYS_MIN: int(1, 36_500, 1),
  /** The longest retention a customer may choose, in days; unset or 0: none, and "kept for ever" may be chosen. */
  CALL_RETENTION_DAYS_MAX: int(0, 36_500, 0),
  /** Run the delivery worker inside the API process (turn off when running separate `worker` processes). */
  WORKER_IN_PROCESS: bool(true),
  WORKER_CONCURRENCY: int(1, 1000, 100),
  /** A warning (log, `/readyz` `warnings`) while the oldest due webhook delivery has waited longer than this. */
  WEBHOOK_BACKLOG_WARN_SECONDS: int(1, 24 * 3600, 60),
  /** Dashboard sessions end after this long unused (default 12 h) or this long after sign-in (default 7 days). */
  DASHBOARD_SESSION_IDLE_SECONDS: int(60, 7 * 24 * 3600, 12 * 3600),
  DASHBOARD_SESSION_ABSOLUTE_SECONDS: int(300, 30 * 24 * 3600, 7 * 24 * 3600),
  DASHBOARD_LOGIN_FAILURES_PER_MINUTE_PER_IP: int(1, 10_000, 10),
  DASHBOARD_LOGIN_FAILURES_PER_MINUTE_PER_EMAIL: int(1, 10_000, 5),
  /** Unset: each entry point's own default (the server `info`, the CLI `warn`). */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
  DEMO_SEED: bool(true),
  /** Accept `svc_test_` keys (test mode: docs/test-mode.md); off, they answer 401 `auth.invalid` and none is made. */
  TEST_MODE: bool(true),
  // Provider and outbound calls
  /** The upstream voice provider: the built-in simulator, or ElevenLabs Agents (docs/provider-elevenlabs.md). */
  PROVIDER: z.enum(['simulator', 'elevenlabs']).default('simulator'),
  /** PROVIDER=elevenlabs: the API key (`xi-api-key`) and the post-call webhook's HMAC secret, both required. */
  ELEVENLABS_API_KEY: z.string().min(1).optional(),
  ELEVENLABS_WEBHOOK_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  ELEVENLABS_BASE_URL: z
    .url()
    .default('https://api.elevenlabs.io')
    .transform((v) => v.replace(/\/+$/, '')),
  /** How long one request to the provider may take before it counts as a timeout. */
  PROVIDER_TIMEOUT_MS: int(100, 120_000, 10_000),
  /** PROVIDER=elevenlabs: how often the server checks that ElevenLabs answers its key (`/readyz`, the log). */
  PROVIDER_CHECK_INTERVAL_SECONDS: int(5, 3600, 60),
  /** Simulator fault injection: `unavailable` fails every API call, `slow` delays each by PROVIDER_SLOW_MS. */
  PROVIDER_FAULT: z.enum(['none', 'unavailable', 'slow']).default('none'),
  PROVIDER_SLOW_MS: int(0, 120_000, 3000),
  /** How long a finished conversation's transcript reads as "still settling" (202 pending). */
  PROVIDER_SETTLE_SECONDS: int(0, 7200, 15),
  /** How often every call that has not ended is checked with its provider (also once at start). */
  RECONCILE_INTERVAL_SECONDS: int(1, 86_400, 60),
  /**
   * Outbound limits of every customer the operator has not given its own (`customers set-outbound-limits`): the
   * regions its keys may call and the largest daily cap a key may have; a new value applies to them from the next start.
   */
  OUTBOUND_COUNTRIES_DEFAULT: regions(DEFAULT_OUTBOUND_LIMITS.countries),
  OUTBOUND_MAX_DAILY_CAP_DEFAULT: capAmount(DEFAULT_OUTBOUND_LIMITS.maxDailyCapUsd),
  // Text messages (docs/sms.md)
  /** Who carries text messages: the built-in simulator, or Twilio Programmable Messaging (docs/provider-twilio.md). */
  SMS_PROVIDER: z.enum(['simulator', 'twilio']).default('simulator'),
  /** SMS_PROVIDER=twilio: the account and its auth token (which also signs Twilio's callbacks), both required. */
  TWILIO_ACCOUNT_SID: z
    .string()
    .regex(/^AC[0-9a-fA-F]{32}$/, 'must be AC followed by 32 hexadecimal digits')
    .optional(),
  TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
  /** Send through this Messaging Service (MG…) instead of naming the assistant's number as the sender. */
  TWILIO_MESSAGING_SERVICE_SID: z
    .string()
    .regex(/^MG[0-9a-fA-F]{32}$/, 'must be MG followed by 32 hexadecimal digits')
    .optional(),
  /** Where Twilio's REST API is reached: its own address unless a proxy (or a test's fake) stands in front. */
  TWILIO_API_BASE_URL: z
    .url()
    .default('https://api.twilio.com')
    .transform((v) => v.replace(/\/+$/, '')),
  /**
   * The address Twilio reaches this server at, as configured on Twilio's side (`https://sms.example.com`, with a
   * path prefix if a proxy adds one): status callbacks go there, and Twilio's signatures are checked against it.
   */
  PUBLIC_BASE_URL: z
    .url()
    .transform((v) => v.replace(/\/+$/, ''))
    .optional(),
  /** What one message segment costs (USD, 4 places): the estimate held against a key's daily spend cap. */
  SMS_PRICE_PER_SEGMENT_USD: z
    .string()
    .regex(/^\d{1,3}(\.\d{1,4})?$/, 'must be a USD amount with at most 4 decimal places, such as 0.0079')
    .default('0.0079'),
  /** A message with no final status this long after it was sent is asked about (its reconciliation). */
  SMS_RECONCILE_AFTER_SECONDS: int(30, 86_400, 300),
  /** Simulated inbound calls per minute to random active assistants; unset: 2 in demo mode, else 0. */
  DEMO_INBOUND_CALLS_PER_MINUTE: int(0, 600, 0).optional(),
});

type Env = z.output<typeof envSchema>;

/** `WEBHOOK_ALLOW_HTTP` → `webhookAllowHttp`: the config is the environment, renamed, so one list serves both. */
type Camel<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Lowercase<Head>}${Capitalize<Camel<Tail>>}`
  : Lowercase<S>;

export type Config = { [K in keyof Env as Camel<K & string>]: Env[K] };

const camel = (name: string): string =>
  name.toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

export class ConfigError extends Error {}

/**
 * On PostgreSQL every process (serve, worker, operator commands, from any folder) must hash keys with one secret;
 * a secret generated into each process's own DATA_DIR would make every key one of them creates a 401 in the others.
 */
const missingServerSecret = (dataDir: string) =>
  [
    'Invalid configuration:',
    '  SERVER_SECRET: required with DATABASE_URL. Every process on one database (serve, worker and the operator',
    '  commands) must use the same secret, or the API keys one of them makes fail with 401 in the others.',
    '  New database: generate one with `openssl rand -base64 32` and set it on every process.',
    '  A database that ran without SERVER_SECRET: use the secret its server generated, the content of that',
    `  server's DATA_DIR/server-secret (with this DATA_DIR: ${path.join(dataDir, 'server-secret')}), so its keys`,
    '  keep working.',
  ].join('\n');

/** The retention default must be a period a customer could choose: within the bounds, and MIN ≤ MAX. */
function retentionBoundsIssues(e: Env): string[] {
  const { CALL_RETENTION_DAYS_DEFAULT: def, CALL_RETENTION_DAYS_MIN: min, CALL_RETENTION_DAYS_MAX: max } = e;
  if (max > 0 && max < min)
    return [`  CALL_RETENTION_DAYS_MAX: must be at least CALL_RETENTION_DAYS_MIN (${min})`];
  if (def > 0 && def < min)
    return [`  CALL_RETENTION_DAYS_DEFAULT: must be at least CALL_RETENTION_DAYS_MIN (${min})`];
  if (max > 0 && (def === 0 || def > max)) {
    return [
      `  CALL_RETENTION_DAYS_DEFAULT: must be at most CALL_RETENTION_DAYS_MAX (${max})` +
        (def === 0 ? '; unset or 0 keeps calls for ever, which is longer' : ''),
    ];
  }
  return [];
}

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
  if (e.DATABASE_URL && !e.SERVER_SECRET) throw new ConfigError(missingServerSecret(e.DATA_DIR));
  const retention = retentionBoundsIssues(e);
  if (retention.length > 0) throw new ConfigError(`Invalid configuration:\n${retention.join('\n')}`);
  if (e.PROVIDER === 'elevenlabs') {
    const missing = (['ELEVENLABS_API_KEY', 'ELEVENLABS_WEBHOOK_SECRET'] as const).filter((name) => !e[name]);
    if (missing.length > 0) {
      throw new ConfigError(
        `Invalid configuration:\n${missing.map((name) => `  ${name}: required when PROVIDER=elevenlabs`).join('\n')}`,
      );
    }
  }
  if (e.SMS_PROVIDER === 'twilio') {
    const missing = (['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'PUBLIC_BASE_URL'] as const).filter(
      (name) => !e[name],
    );
    if (missing.length > 0) {
      throw new ConfigError(
        `Invalid configuration:\n${missing.map((name) => `  ${name}: required when SMS_PROVIDER=twilio`).join('\n')}`,
      );
    }
  }
  return Object.fromEntries(Object.entries(e).map(([name, value]) => [camel(name), value])) as Config;
}
