import type { Clock } from '../clock.ts';
import type { Database } from '../db/index.ts';
import { newUuid } from '../ids.ts';
import { keyDefaults, type OutboundLimits } from '../outbound-limits.ts';
import { displayPrefix, generateKey } from './key-format.ts';
import type { KeyHasher } from './key-hash.ts';
import { SCOPES } from './scopes.ts';

export type SeededKey = { customer_id: string; key_id: string; prefix: string; secret: string };

/** Reports progress of a long phase (a progress bar in the CLI; nothing in tests). */
export type SeedProgress = {
  start(phase: string, total: number): void;
  advance(by: number): void;
  stop(): void;
};

/**
 * Seeding (the CLI's `seed`): `perCustomer` real keys for each customer (same format and keyed hash as the keys
 * service, so they authenticate), with every grantable scope and the default outbound limits, at most
 * `KEYS_PER_STATEMENT` keys an insert.
 */
/**
 * A statement carries at most 65,535 parameters (the protocol's 16-bit count) and a key row 12: 200 customers of 100
 * keys each made one of 240,000, which PostgreSQL refused.
 */
const KEYS_PER_STATEMENT = 2_000;

export async function seedKeys(
  conn: Database,
  deps: { hasher: KeyHasher; clock: Clock; outboundDefaults: OutboundLimits },
  customers: string[],
  opts: { keysPerCustomer: number; keyRateLimit: number | null },
  progress: SeedProgress,
): Promise<SeededKey[]> {
  const now = deps.clock.now();
  const outbound = keyDefaults(deps.outboundDefaults);
  const keys: SeededKey[] = [];
  progress.start('keys', customers.length * opts.keysPerCustomer);
  const customersPerStatement = Math.max(1, Math.floor(KEYS_PER_STATEMENT / opts.keysPerCustomer));
  for (let i = 0; i < customers.length; i += customersPerStatement) {
    const batch = customers.slice(i, i + customersPerStatement).flatMap((customerId) =>
      Array.from({ length: opts.keysPerCustomer }, (): SeededKey => {
        const secret = generateKey();
        return { customer_id: customerId, key_id: newUuid(), prefix: displayPrefix(secret), secret };
      }),
    );
    if (batch.length === 0) continue;
    await conn
      .insertInto('api_keys')
      .values(
        batch.map((k, j) => ({
          id: k.key_id,
          customer_id: k.customer_id,
          name: `Seed key ${(j % opts.keysPerCustomer) + 1}`,
          prefix: k.prefix,
          scopes: [...SCOPES],
          expires_at: null,
          revoked_at: null,
          daily_spend_cap_usd: outbound.capUsd,
          allowed_countries: [...outbound.countries],
          rate_limit_per_minute: opts.keyRateLimit,
          created_at: now,
          last_used_at: null,
        })),
      )
      .execute();
    await conn
      .insertInto('api_key_secrets')
      .values(
        batch.map((k) => ({
          hash: deps.hasher.hash(k.secret),
          key_id: k.key_id,
          created_at: now,
          valid_until: null,
        })),
      )
      .execute();
    keys.push(...batch);
    progress.advance(batch.length);
  }
  progress.stop();
  return keys;
}
