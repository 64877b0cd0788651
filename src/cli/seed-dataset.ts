import { sql } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { newUuid } from '../ids.ts';
import { displayPrefix, generateKey } from '../keys/key-format.ts';
import type { KeyHasher } from '../keys/key-hash.ts';
import { GRANTABLE_SCOPES } from '../keys/scopes.ts';
import { keyDefaults, type OutboundLimits } from '../outbound-limits.ts';
import { insertSeedCalls } from './seed-calls.sql.ts';

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

export type SeededKey = { customer_id: string; key_id: string; prefix: string; secret: string };
export type SeedResult = { customers: string[]; assistants: number; calls: number; keys: SeededKey[] };

/** Reports progress of the long phases (a progress bar in the CLI; nothing in tests). */
export type SeedProgress = {
  start(phase: string, total: number): void;
  advance(by: number): void;
  stop(): void;
};
const silent: SeedProgress = { start() {}, advance() {}, stop() {} };

const VOICES = ['alloy', 'aria', 'breeze', 'cove', 'ember', 'juniper', 'maple', 'orion', 'sage', 'vale'];

/**
 * A large realistic data set, fast: customers, assistants and calls are made by the database itself
 * (insert … select … generate_series, in batches); keys are real (same format and keyed hash as the
 * keys service), so they authenticate. Runs on one pinned connection for its temp tables.
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
    await sql`create temp table seed_customers as
      select (g - 1)::bigint as n, gen_random_uuid() as id from generate_series(1, ${opts.customers}::int) g`.execute(
      conn,
    );
    await sql`insert into customers (id, name, rate_limit_per_minute, created_at)
      select id, 'Seed customer ' || lpad((n + 1)::text, 6, '0') || ' ' || left(id::text, 8),
        ${opts.customerRateLimit}::int, ${now}::timestamptz
      from seed_customers`.execute(conn);
    await sql`create temp table seed_assistants as
      select c.n * ${perCustomerAssistants}::int + k - 1 as n, gen_random_uuid() as id, c.id as customer_id, k,
        '+1' || (array['212', '415', '312', '617', '206', '416', '604', '514', '303', '512'])[1 + (c.n % 10)::int]
          || '55501' || lpad(((c.n * 7 + k) % 100)::text, 2, '0') as phone, null::uuid as key_id
      from seed_customers c cross join generate_series(1, ${perCustomerAssistants}::int) k`.execute(conn);
    await sql`create unique index on seed_assistants (n)`.execute(conn);
    await sql`insert into assistants (id, customer_id, name, description, language, voice_id, is_active,
        phone_numbers, created_at, updated_at)
      select id, customer_id,
        (array['Front Desk', 'Reminders', 'Support', 'Billing', 'After Hours', 'Accueil'])[1 + (k - 1) % 6]
          || case when k > 6 then ' ' || k else '' end,
        (array['Answers inbound calls and books appointments.', 'Calls customers to confirm appointments.',
          'Handles support questions.', 'Answers billing questions.', 'Takes messages after hours.',
          'Répond aux appels en français.'])[1 + (k - 1) % 6],
        case when (k - 1) % 6 = 5 then 'fr-CA' else 'en-US' end,
        (${VOICES}::text[])[1 + (n % 10)::int], true, array[phone],
        ${now}::timestamptz - k * interval '1 minute', ${now}::timestamptz - k * interval '1 minute'
      from seed_assistants`.execute(conn);
    const { rows } = await sql<{ id: string }>`select id from seed_customers order by n`.execute(conn);
    const customers = rows.map((r) => r.id);

    const keys = await insertKeys(conn, deps, customers, opts, progress);
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
    return { customers, assistants, calls: opts.calls, keys };
  });
}

async function insertKeys(
  conn: Database,
  deps: { hasher: KeyHasher; clock: Clock; outboundDefaults: OutboundLimits },
  customers: string[],
  opts: SeedOptions,
  progress: SeedProgress,
): Promise<SeededKey[]> {
  const now = deps.clock.now();
  const outbound = keyDefaults(deps.outboundDefaults);
  const keys: SeededKey[] = [];
  progress.start('keys', customers.length * opts.keysPerCustomer);
  for (let i = 0; i < customers.length; i += 200) {
    const batch = customers.slice(i, i + 200).flatMap((customerId) =>
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
          scopes: [...GRANTABLE_SCOPES],
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
