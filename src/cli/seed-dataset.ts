import { sql } from 'kysely';
import { seedAssistants } from '../assistants/index.ts';
import type { Clock } from '../clock.ts';
import { seedCustomers } from '../customers/index.ts';
import type { Database } from '../db/index.ts';
import type { KeyHasher } from '../keys/index.ts';
import { type SeededKey, type SeedProgress, seedKeys } from '../keys/index.ts';
import type { OutboundLimits } from '../outbound-limits.ts';
import { insertSeedCalls } from './seed-calls.sql.ts';

export type { SeededKey, SeedProgress };

export type SeedOptions = {
  customers: number;
  assistantsPerCustomer: number;
  calls: number;
  keysPerCustomer: number;
  /** started_at is spread over this many days before now. */
  days: number;
  batchSize: number;
  /** Each customer's ceiling (requests per minute, 1 to 600). */
  customerRateLimit: number;
  /** Each key's ceiling; null keeps the configured default. */
  keyRateLimit: number | null;
};

export type SeedResult = { customers: string[]; assistants: number; calls: number; keys: SeededKey[] };

const silent: SeedProgress = { start() {}, advance() {}, stop() {} };

/**
 * A large realistic data set, fast: customers, assistants and calls are made by the database itself
 * (insert … select … generate_series, in batches), each by its owner; keys are real (same format and keyed hash
 * as the keys service), so they authenticate. Runs on one pinned connection for its temp tables.
 */
export async function seedDataset(
  db: Database,
  deps: {
    hasher: KeyHasher;
    clock: Clock;
    /** The operator's default outbound limits, which the new customers follow: their keys get the defaults within. */
    outboundDefaults: OutboundLimits;
  },
  opts: SeedOptions,
  progress: SeedProgress = silent,
): Promise<SeedResult> {
  const now = deps.clock.now();
  const perCustomerAssistants = Math.max(1, opts.assistantsPerCustomer);
  return db.connection().execute(async (conn) => {
    await sql`drop table if exists seed_customers, seed_assistants`.execute(conn);
    const customers = await seedCustomers(conn, {
      count: opts.customers,
      rateLimitPerMinute: opts.customerRateLimit,
      now,
    });
    await seedAssistants(conn, { perCustomer: perCustomerAssistants, now });

    const keys = await seedKeys(conn, deps, customers, opts, progress);
    // API-placed calls name a key of their customer, as live ones do.
    const firstKeys = keys.filter((_, i) => i % opts.keysPerCustomer === 0);
    await sql`update seed_assistants a set key_id = k.key_id
      from jsonb_to_recordset(${JSON.stringify(firstKeys)}::jsonb) as k(customer_id uuid, key_id uuid)
      where k.customer_id = a.customer_id`.execute(conn);

    const assistants = customers.length * perCustomerAssistants;
    progress.start('calls', opts.calls);
    for (let first = 0; first < opts.calls; first += opts.batchSize) {
      const last = Math.min(opts.calls, first + opts.batchSize) - 1;
      await insertSeedCalls(conn, { first, last, assistants, end: now, days: opts.days });
      progress.advance(last - first + 1);
    }
    progress.stop();
    await sql`drop table seed_customers, seed_assistants`.execute(conn);
    // Statistics for what was just written: without them (PGlite has no autovacuum, and a server's waits for its
    // threshold) the planner takes a million calls for a few and reads every one of them for each page or export
    // batch (940 ms a batch of 1,000 instead of 8 ms on a freshly seeded folder).
    await sql`analyze`.execute(conn);
    return { customers, assistants, calls: opts.calls, keys };
  });
}
