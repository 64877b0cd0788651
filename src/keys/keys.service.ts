import { getCountries } from 'libphonenumber-js/max';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import type { ApiKeyRow } from '../db/tables/keys.table.ts';
import { AppError, type Issue, invalidInput, notFound } from '../errors/app-error.ts';
import { newUuid } from '../ids.ts';
import { announceKeyChange, type KeyCache } from './key-cache.ts';
import { displayPrefix, generateKey } from './key-format.ts';
import type { KeyHasher } from './key-hash.ts';
import * as repo from './keys.repository.ts';
import { isScope, UNAVAILABLE_SCOPES } from './scopes.ts';

export const DEFAULT_ALLOWED_COUNTRIES = ['US', 'CA'];
export const DEFAULT_DAILY_SPEND_CAP_USD = '100.00';
const KNOWN_COUNTRIES = new Set<string>(getCountries());

export type KeysDeps = {
  db: Database;
  hasher: KeyHasher;
  clock: Clock;
  rotationGraceSeconds: number;
  /** This instance's cache of verified keys: told of each change at commit (others hear the notification). */
  keyCache: Pick<KeyCache, 'changed'>;
};

/** A key as operators and the dashboard see it: never the secret, never its hash. */
export type KeyView = {
  id: string;
  customer_id: string;
  name: string;
  prefix: string;
  scopes: string[];
  status: 'active' | 'revoked' | 'expired';
  expires_at: string | null;
  daily_spend_cap_usd: string;
  allowed_countries: string[];
  rate_limit_per_minute: number | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
};

export function rowToKeyView(row: ApiKeyRow, now: Date): KeyView {
  const status = row.revoked_at ? 'revoked' : row.expires_at && row.expires_at <= now ? 'expired' : 'active';
  return {
    id: row.id,
    customer_id: row.customer_id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    status,
    expires_at: row.expires_at?.toISOString() ?? null,
    daily_spend_cap_usd: row.daily_spend_cap_usd,
    allowed_countries: row.allowed_countries,
    rate_limit_per_minute: row.rate_limit_per_minute,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
    revoked_at: row.revoked_at?.toISOString() ?? null,
  };
}

export function checkScopes(scopes: readonly string[], path: string[] = ['scopes']): Issue[] {
  return scopes.flatMap((s): Issue[] => {
    if (!isScope(s)) return [{ path, message: `Unknown scope "${s}".` }];
    if (UNAVAILABLE_SCOPES.includes(s))
      return [{ path, message: `Scope "${s}" is announced but not yet available.` }];
    return [];
  });
}

export type NewKeyInput = {
  customerId: string;
  name: string;
  scopes: readonly string[];
  expiresAt?: Date | null;
  dailySpendCapUsd?: string;
  allowedCountries?: readonly string[];
  /** Per-key window ceiling (1-600); absent means the configured default. */
  rateLimitPerMinute?: number | null;
};

export function createKeysService(deps: KeysDeps) {
  const { db, hasher, clock, keyCache } = deps;

  async function requireKey(keyId: string): Promise<ApiKeyRow> {
    const row = await repo.findKey(db, keyId);
    if (!row) throw notFound('API key');
    return row;
  }

  async function changeKey(keyId: string, changes: Parameters<typeof repo.updateKey>[2]) {
    const updated = await db.transaction().execute(async (tx) => {
      const row = await repo.updateKey(tx, keyId, changes);
      await announceKeyChange(tx, keyId);
      return row;
    });
    keyCache.changed(keyId);
    return updated;
  }

  return {
    async createKey(input: NewKeyInput): Promise<{ key: KeyView; secret: string }> {
      const now = clock.now();
      const countries = (input.allowedCountries ?? DEFAULT_ALLOWED_COUNTRIES).map((c) => c.toUpperCase());
      const cap = input.dailySpendCapUsd ?? DEFAULT_DAILY_SPEND_CAP_USD;
      const issues: Issue[] = [
        ...(input.name.trim() ? [] : [{ path: ['name'], message: 'Name must not be empty.' }]),
        ...checkScopes(input.scopes),
        ...countries
          .filter((c) => !KNOWN_COUNTRIES.has(c))
          .map((c) => ({ path: ['allowed_countries'], message: `Unknown country code "${c}".` })),
        ...(/^\d{1,10}(\.\d{1,2})?$/.test(cap)
          ? []
          : [
              {
                path: ['daily_spend_cap_usd'],
                message: 'Must be a non-negative amount with at most 2 decimals.',
              },
            ]),
        ...(input.rateLimitPerMinute == null ||
        (Number.isInteger(input.rateLimitPerMinute) &&
          input.rateLimitPerMinute >= 1 &&
          input.rateLimitPerMinute <= 600)
          ? []
          : [{ path: ['rate_limit_per_minute'], message: 'Must be a whole number from 1 to 600.' }]),
        ...(input.expiresAt && input.expiresAt <= now
          ? [{ path: ['expires_at'], message: 'Must be in the future.' }]
          : []),
      ];
      if (issues.length > 0) throw invalidInput(issues);
      const secret = generateKey();
      const row = {
        id: newUuid(),
        customer_id: input.customerId,
        name: input.name.trim(),
        prefix: displayPrefix(secret),
        scopes: [...new Set(input.scopes)],
        expires_at: input.expiresAt ?? null,
        daily_spend_cap_usd: cap,
        allowed_countries: [...new Set(countries)],
        rate_limit_per_minute: input.rateLimitPerMinute ?? null,
        created_at: now,
      };
      await db.transaction().execute(async (tx) => {
        await repo.insertKey(tx, row, hasher.hash(secret));
        await announceKeyChange(tx, row.id);
      });
      keyCache.changed(row.id);
      return { key: rowToKeyView({ ...row, revoked_at: null, last_used_at: null }, now), secret };
    },

    /**
     * New value for the same key id; the old value works until the grace period ends. One transaction with
     * the key locked: a rotation racing another, or a revocation, sees the key as the other left it.
     */
    async rotateKey(keyId: string): Promise<{ key: KeyView; secret: string; previousValidUntil: string }> {
      const now = clock.now();
      const graceEnd = new Date(now.getTime() + deps.rotationGraceSeconds * 1000);
      const secret = generateKey();
      const updated = await db.transaction().execute(async (tx) => {
        const row = await repo.findKeyForUpdate(tx, keyId);
        if (!row) throw notFound('API key');
        if (row.revoked_at) throw new AppError('resource.conflict', 'A revoked key cannot be rotated.');
        // The display prefix follows the newest value.
        const next = { hash: hasher.hash(secret), prefix: displayPrefix(secret) };
        const rotated = await repo.rotateSecret(tx, keyId, next, now, graceEnd);
        await announceKeyChange(tx, keyId);
        return rotated;
      });
      keyCache.changed(keyId);
      return { key: rowToKeyView(updated, now), secret, previousValidUntil: graceEnd.toISOString() };
    },

    /** Immediate and irreversible. */
    async revokeKey(keyId: string): Promise<KeyView> {
      const row = await requireKey(keyId);
      const now = clock.now();
      if (row.revoked_at) return rowToKeyView(row, now);
      const updated = await changeKey(keyId, { revoked_at: now });
      return rowToKeyView(updated ?? row, now);
    },

    async setScopes(keyId: string, scopes: readonly string[]): Promise<KeyView> {
      const issues = checkScopes(scopes);
      if (issues.length > 0) throw invalidInput(issues);
      const row = await requireKey(keyId);
      if (row.revoked_at) throw new AppError('resource.conflict', 'A revoked key cannot be changed.');
      const updated = await changeKey(keyId, { scopes: [...new Set(scopes)] });
      return rowToKeyView(updated ?? row, clock.now());
    },

    async listKeys(filter: { customerId?: string; prefix?: string }): Promise<KeyView[]> {
      const now = clock.now();
      return (await repo.listKeys(db, filter)).map((r) => rowToKeyView(r, now));
    },

    async getKey(keyId: string): Promise<KeyView> {
      return rowToKeyView(await requireKey(keyId), clock.now());
    },
  };
}

export type KeysService = ReturnType<typeof createKeysService>;
