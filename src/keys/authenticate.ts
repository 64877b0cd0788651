import { hash as digest } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import { findAuthCustomer } from '../customers/index.ts';
import type { BackgroundLane, Database, KeyMode } from '../db/index.ts';
import { createWriteBehind } from '../db/index.ts';
import { AppError } from '../errors/index.ts';
import { type OutboundLimits, resolveLimits } from '../outbound-limits.ts';
import type { KeyCache } from './key-cache.ts';
import { parseToken } from './key-format.ts';
import { type KeyHasher, sameDigest } from './key-hash.ts';
import type { KeyRecord } from './keys.repository.ts';
import * as repo from './keys.repository.ts';

/** Who is calling: the key and its customer, as held by the key cache (`key-cache.ts`) or read. */
export type Principal = {
  keyId: string;
  keyPrefix: string;
  keyName: string;
  /** The key's mode: a `test` key sees only its customer's test data. */
  mode: KeyMode;
  /**
   * Whose data the request reads and writes: the customer, or for a test key its test twin (the customer row
   * its test data lives under). Everything scoped by customer uses this, so the two modes never meet.
   */
  customerId: string;
  /** The customer the key belongs to, whatever its mode: its assistants, its name and its plan. */
  accountId: string;
  customerName: string;
  scopes: string[];
  /** Ceiling of the per-customer window (the plan). */
  rateLimitPerMinute: number;
  /** Ceiling of the per-key window. */
  keyRateLimitPerMinute: number;
  /** The key's own cap and allowlist, as stored. */
  dailySpendCapUsd: string;
  allowedCountries: string[];
  /** Its customer's outbound limits, set by the operator (or the defaults): the key is held inside them. */
  outboundLimits: OutboundLimits;
};

export type AuthFailureCode = 'auth.missing' | 'auth.invalid' | 'auth.revoked' | 'auth.expired';
export type AuthFailure = { code: AuthFailureCode; detail: string; prefix: string | null };

const LAST_USED_PRECISION_MS = 60_000;

export type Authenticator = {
  /**
   * Resolves a bearer token to its principal, or says why it is refused. Takes every Authorization header
   * line of the request: exactly one is allowed, since proxies and frameworks disagree on which of several wins.
   */
  authenticate(authorization: readonly string[]): Promise<Principal | AuthFailure>;
  recordFailure(failure: AuthFailure, ip: string): Promise<void>;
  /** What the key of this id acts as, checked as a request's (the operator's `sms send` acts as a customer's key). */
  actAs(keyId: string): Promise<Principal | AuthFailure>;
  /** Writes the pending `last_used_at` times now (tests, shutdown). */
  flushLastUsed(): Promise<void>;
  /** Flushes and stops the timer (app shutdown). */
  close(): Promise<void>;
};

export function createAuthenticator(deps: {
  db: Database;
  hasher: KeyHasher;
  clock: Clock;
  logger: Logger;
  defaultKeyRateLimit: number;
  outboundDefaults: OutboundLimits;
  keyCache: KeyCache;
  lastUsedFlushMs?: number;
  /** The process's lane for background writes (absent: statements back to back). */
  backgroundWrites?: BackgroundLane;
  /** TEST_MODE: whether `svc_test_` keys are accepted (off: they answer as before test mode existed). */
  testMode: boolean;
}): Authenticator {
  const { db, hasher, clock, logger, keyCache } = deps;
  // The database holds the keyed HMAC of each value; a row counts only if its stored digest equals the presented
  // one in constant time, so the cache below only ever holds records verified this way.
  const read = async (token: string) => {
    const hash = hasher.hash(token);
    const row = await repo.findBySecretHash(db, hash);
    if (!row || !sameDigest(row.hash, hash)) return undefined;
    // The customer is read apart: its table is the customers module's (a cache miss only, once per key).
    const customer = await findAuthCustomer(db, row.customer_id);
    return customer && { ...row, ...customer };
  };
  // `last_used_at` is shown to the minute; writing it from every request would cost a commit per request
  // (a quarter of the throughput with many keys), so uses are collected and written every few seconds.
  // Each use carries the held record, which learns the time once it is written, so the key's next uses within
  // the minute add nothing.
  const lastUsed = createWriteBehind<{ keyId: string; at: Date; record: KeyRecord }>({
    flushMs: deps.lastUsedFlushMs ?? 5_000,
    merge: (a, b) => (b.at > a.at ? b : a),
    write: async (uses) => {
      await repo.touchLastUsed(db, uses);
      for (const { record, at } of uses) {
        if (!record.last_used_at || record.last_used_at < at) record.last_used_at = at;
      }
    },
    lane: deps.backgroundWrites,
    logger,
    what: 'last_used_at',
  });
  /** What a valid key acts as; null for a test key whose customer has no twin (it is always made with one). */
  function principalOf(row: Omit<KeyRecord, 'hash' | 'valid_until'>): Principal | null {
    const dataScope = row.mode === 'test' ? row.test_customer_id : row.customer_id;
    if (!dataScope) return null;
    return {
      keyId: row.id,
      keyPrefix: row.prefix,
      keyName: row.name,
      mode: row.mode,
      customerId: dataScope,
      accountId: row.customer_id,
      customerName: row.customer_name,
      scopes: row.scopes,
      rateLimitPerMinute: row.rate_limit_per_minute,
      keyRateLimitPerMinute: row.key_rate_limit_per_minute ?? deps.defaultKeyRateLimit,
      dailySpendCapUsd: row.daily_spend_cap_usd,
      allowedCountries: row.allowed_countries,
      outboundLimits: resolveLimits(row, deps.outboundDefaults),
    };
  }

  return {
    async authenticate(headers) {
      const [authorization, ...others] = headers;
      if (authorization === undefined) {
        return {
          code: 'auth.missing',
          detail: 'Send your API key as "Authorization: Bearer <API_KEY>".',
          prefix: null,
        };
      }
      if (others.length > 0) {
        return {
          code: 'auth.invalid',
          detail: 'Exactly one Authorization header is allowed; this request has several.',
          prefix: null,
        };
      }
      const match = /^Bearer +(\S+) *$/i.exec(authorization);
      if (!match?.[1]) {
        return {
          code: 'auth.invalid',
          detail: 'The Authorization header must be "Bearer <API_KEY>".',
          prefix: null,
        };
      }
      const token = match[1];
      const parsed = parseToken(token);
      if (parsed.mode === 'test' && !deps.testMode) {
        return {
          code: 'auth.invalid',
          detail: 'Test-mode keys (svc_test_) are not available on this service.',
          prefix: null,
        };
      }
      if (parsed.kind === 'malformed') {
        return {
          code: 'auth.invalid',
          detail: `The API key is not a valid ${parsed.mode === 'test' ? 'svc_test_' : 'svc_live_'} key.`,
          prefix: parsed.prefix,
        };
      }
      // Memory is indexed by a plain SHA-256 of the value (one native call, 1.4 µs here) and the HMAC (4.7 µs, an
      // object per call) is computed only to read the database: the HMAC was the largest frame of a whoami whose
      // key was held (docs/performance.md). The value carries ~178 random bits, so its digest reveals nothing.
      const row = await keyCache.lookup(digest('sha256', token, 'base64url'), () => read(token));
      const now = clock.now();
      if (!row) {
        return { code: 'auth.invalid', detail: 'The API key is not recognised.', prefix: parsed.prefix };
      }
      if (row.revoked_at) {
        return { code: 'auth.revoked', detail: 'The API key has been revoked.', prefix: parsed.prefix };
      }
      if (row.expires_at && row.expires_at <= now) {
        return {
          code: 'auth.expired',
          detail: `The API key expired at ${row.expires_at.toISOString()}.`,
          prefix: parsed.prefix,
        };
      }
      if (row.valid_until && row.valid_until <= now) {
        return {
          code: 'auth.invalid',
          detail:
            'This key value was replaced by a rotation and its grace period has ended; use the new value.',
          prefix: parsed.prefix,
        };
      }
      if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() >= LAST_USED_PRECISION_MS) {
        lastUsed.add(row.id, { keyId: row.id, at: now, record: row });
      }
      return (
        principalOf(row) ?? {
          code: 'auth.invalid',
          detail: 'The API key is not recognised.',
          prefix: parsed.prefix,
        }
      );
    },

    async actAs(keyId) {
      const key = await repo.findKey(db, keyId);
      const customer = key && (await findAuthCustomer(db, key.customer_id));
      const now = clock.now();
      if (!key || !customer) return { code: 'auth.invalid', detail: 'No API key has this id.', prefix: null };
      if (key.revoked_at)
        return { code: 'auth.revoked', detail: 'The API key has been revoked.', prefix: key.prefix };
      if (key.expires_at && key.expires_at <= now)
        return {
          code: 'auth.expired',
          detail: `The API key expired at ${key.expires_at.toISOString()}.`,
          prefix: key.prefix,
        };
      return (
        principalOf({ ...key, key_rate_limit_per_minute: key.rate_limit_per_minute, ...customer }) ?? {
          code: 'auth.invalid',
          detail: 'No API key has this id.',
          prefix: null,
        }
      );
    },

    async recordFailure(failure, ip) {
      logger.warn({ ip, key_prefix: failure.prefix, reason: failure.code }, 'authentication failed');
      await repo.insertAuthFailure(db, {
        occurred_at: clock.now(),
        ip,
        key_prefix: failure.prefix,
        reason: failure.code,
      });
    },

    flushLastUsed: lastUsed.flush,
    close: lastUsed.stop,
  };
}

export const isFailure = (r: Principal | AuthFailure): r is AuthFailure => 'code' in r;

export const failureError = (f: AuthFailure, headers: Record<string, string> = {}): AppError =>
  new AppError(f.code, f.detail, { headers });
