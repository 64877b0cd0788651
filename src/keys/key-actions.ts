import type { Clock } from '../clock.ts';
import { ensureTestTwin, findCustomer, findLimits } from '../customers/index.ts';
import type { ApiKeyRow, Database, KeyMode } from '../db/index.ts';
import { AppError, type Issue, invalidInput, notFound } from '../errors/index.ts';
import { isUuid, newUuid } from '../ids.ts';
import {
  formatCap,
  isCapAmount,
  isRegion,
  type KeyOutbound,
  keyDefaults,
  limitIssues,
  normalizeRegions,
  type OutboundLimits,
  resolveLimits,
  valueIssues,
} from '../outbound-limits.ts';
import { announceKeyChange, type KeyCache } from './key-cache.ts';
import { displayPrefix, generateKey } from './key-format.ts';
import type { KeyHasher } from './key-hash.ts';
import { type KeyView, rowToKeyView } from './key-view.ts';
import * as repo from './keys.repository.ts';
import { isScope } from './scopes.ts';

export type KeysDeps = {
  db: Database;
  hasher: KeyHasher;
  clock: Clock;
  rotationGraceSeconds: number;
  /** The outbound limits of customers without their own (OUTBOUND_COUNTRIES_DEFAULT, OUTBOUND_MAX_DAILY_CAP_DEFAULT). */
  outboundDefaults: OutboundLimits;
  /** This instance's cache of verified keys: told of each change at commit (others hear the notification). */
  keyCache: Pick<KeyCache, 'changed'>;
  /** TEST_MODE: test-mode keys can be made (off: refused, as they could not be used). */
  testMode?: boolean | undefined;
};

export function checkScopes(scopes: readonly string[], path: string[] = ['scopes']): Issue[] {
  return scopes.flatMap((s): Issue[] => {
    if (!isScope(s)) return [{ path, message: `Unknown scope "${s}".` }];
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
  /** `test`: a `svc_test_` key, whose requests see the customer's test data only (default `live`). */
  mode?: KeyMode;
};

/**
 * Whose keys a caller may act on: one customer's (the API, the dashboard) or any customer's (the operator's CLI,
 * keys.operator.ts). A key of another customer is indistinguishable from a missing one.
 */
export type KeyOwner = { customerId: string } | 'any customer';

/** The key actions behind both doors: the customer's (`createKeysService`) and the operator's (keys.operator.ts). */
export function createKeyActions(deps: KeysDeps) {
  const { db, hasher, clock, keyCache } = deps;

  async function requireKey(owner: KeyOwner, keyId: string): Promise<ApiKeyRow> {
    if (owner === 'any customer') {
      // The operator's typing errors are named by the CLI from the database's own refusal of a malformed id.
      const row = await repo.findKey(db, keyId);
      if (!row) throw notFound('API key', { table: 'api_keys', id: keyId });
      return row;
    }
    const row = isUuid(keyId) ? await repo.findKey(db, keyId.toLowerCase()) : undefined;
    if (!row || row.customer_id !== owner.customerId) throw notFound('API key');
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

  /** Views of keys, each held to its customer's limits (read in one query for all). */
  async function views(rows: ApiKeyRow[]): Promise<KeyView[]> {
    const stored = await findLimits(db, [...new Set(rows.map((r) => r.customer_id))]);
    const limits = new Map(stored.map((c) => [c.id, resolveLimits(c, deps.outboundDefaults)]));
    const now = clock.now();
    return rows.map((r) => rowToKeyView(r, now, limits.get(r.customer_id) ?? deps.outboundDefaults));
  }
  const view = async (row: ApiKeyRow): Promise<KeyView> => {
    const [v] = await views([row]);
    if (!v) throw notFound('API key');
    return v;
  };

  async function limitsOf(customerId: string): Promise<OutboundLimits> {
    const customer = await findCustomer(db, customerId);
    // A test twin is its customer's test data, not a customer: keys, test ones too, belong to the customer.
    if (!customer || customer.live_customer_id)
      throw notFound('Customer', { table: 'customers', id: customerId });
    return resolveLimits(customer, deps.outboundDefaults);
  }

  /** A key's allowlist and cap: known values, inside its customer's limits (422 naming the field and the bound). */
  function checkOutbound(
    input: NewKeyInput,
    limits: OutboundLimits,
  ): { issues: Issue[]; outbound: KeyOutbound } {
    const defaults = keyDefaults(limits);
    const countries = input.allowedCountries ? normalizeRegions(input.allowedCountries) : defaults.countries;
    const capUsd = input.dailySpendCapUsd ?? defaults.capUsd;
    const issues = [
      ...valueIssues({ countries, capUsd }, { countries: 'allowed_countries', cap: 'daily_spend_cap_usd' }),
      ...limitIssues({ countries: countries.filter(isRegion), capUsd }, limits),
    ];
    return { issues, outbound: { countries, capUsd: isCapAmount(capUsd) ? formatCap(capUsd) : capUsd } };
  }

  return {
    async createKey(input: NewKeyInput): Promise<{ key: KeyView; secret: string }> {
      const now = clock.now();
      const limits = await limitsOf(input.customerId);
      const { issues: outboundIssues, outbound } = checkOutbound(input, limits);
      const issues: Issue[] = [
        ...(input.name.trim() ? [] : [{ path: ['name'], message: 'Name must not be empty.' }]),
        ...checkScopes(input.scopes),
        ...outboundIssues,
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
      const mode = input.mode ?? 'live';
      if (mode === 'test' && !deps.testMode) {
        throw invalidInput([
          {
            path: ['mode'],
            message: 'Test mode is off on this service (TEST_MODE=false): no svc_test_ key can be made.',
          },
        ]);
      }
      const secret = generateKey(mode);
      const row = {
        id: newUuid(),
        customer_id: input.customerId,
        mode,
        name: input.name.trim(),
        prefix: displayPrefix(secret),
        scopes: [...new Set(input.scopes)],
        expires_at: input.expiresAt ?? null,
        daily_spend_cap_usd: outbound.capUsd,
        allowed_countries: [...outbound.countries],
        rate_limit_per_minute: input.rateLimitPerMinute ?? null,
        created_at: now,
      };
      await db.transaction().execute(async (tx) => {
        if (mode === 'test') await ensureTestTwin(tx, input.customerId, newUuid(), now);
        await repo.insertKey(tx, row, hasher.hash(secret));
        await announceKeyChange(tx, row.id);
      });
      keyCache.changed(row.id);
      return { key: rowToKeyView({ ...row, revoked_at: null, last_used_at: null }, now, limits), secret };
    },

    /**
     * New value for the same key id; the old value works until the grace period ends. One transaction with
     * the key locked: a rotation racing another, or a revocation, sees the key as the other left it.
     */
    async rotateKey(
      owner: KeyOwner,
      keyId: string,
    ): Promise<{ key: KeyView; secret: string; previousValidUntil: string }> {
      const { id, mode } = await requireKey(owner, keyId);
      const now = clock.now();
      const graceEnd = new Date(now.getTime() + deps.rotationGraceSeconds * 1000);
      const secret = generateKey(mode);
      const updated = await db.transaction().execute(async (tx) => {
        const row = await repo.findKeyForUpdate(tx, id);
        if (!row) throw notFound('API key', { table: 'api_keys', id });
        if (row.revoked_at) throw new AppError('resource.conflict', 'A revoked key cannot be rotated.');
        // The display prefix follows the newest value.
        const next = { hash: hasher.hash(secret), prefix: displayPrefix(secret) };
        const rotated = await repo.rotateSecret(tx, id, next, now, graceEnd);
        await announceKeyChange(tx, id);
        return rotated;
      });
      keyCache.changed(id);
      return { key: await view(updated), secret, previousValidUntil: graceEnd.toISOString() };
    },

    /** Immediate and irreversible. */
    async revokeKey(owner: KeyOwner, keyId: string): Promise<KeyView> {
      const row = await requireKey(owner, keyId);
      if (row.revoked_at) return view(row);
      const updated = await changeKey(row.id, { revoked_at: clock.now() });
      return view(updated ?? row);
    },

    async setScopes(owner: KeyOwner, keyId: string, scopes: readonly string[]): Promise<KeyView> {
      const row = await requireKey(owner, keyId);
      const issues = checkScopes(scopes);
      if (issues.length > 0) throw invalidInput(issues);
      if (row.revoked_at) throw new AppError('resource.conflict', 'A revoked key cannot be changed.');
      const updated = await changeKey(row.id, { scopes: [...new Set(scopes)] });
      return view(updated ?? row);
    },

    async listKeys(filter: { customerId?: string; prefix?: string; mode?: KeyMode }): Promise<KeyView[]> {
      return views(await repo.listKeys(db, filter));
    },

    async getKey(owner: KeyOwner, keyId: string): Promise<KeyView> {
      return view(await requireKey(owner, keyId));
    },

    /** What a new key of this customer gets without an allowlist or cap, and the limits it must lie inside. */
    async newKeyDefaults(customerId: string): Promise<KeyOutbound & { limits: OutboundLimits }> {
      const limits = await limitsOf(customerId);
      return { ...keyDefaults(limits), limits };
    },
  };
}
