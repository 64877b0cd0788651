import { sql } from 'kysely';
import type { Database } from '../db/database.ts';

export type UsageDelta = { keyId: string; customerId: string; day: string; requests: number; errors: number };

/**
 * One statement: adds each (key, day) delta to its row. The rows travel as five arrays, not five parameters each:
 * PostgreSQL takes at most 65,535 parameters (a flush of 13,108 keys in one statement failed at every retry), and a
 * statement of thousands of parameters took the event loop 6–22 ms to build (docs/performance.md).
 */
export async function addUsage(db: Database, deltas: UsageDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  await sql`
    insert into key_usage_daily (key_id, day, customer_id, requests, errors)
    select * from unnest(
      ${deltas.map((d) => d.keyId)}::uuid[],
      ${deltas.map((d) => d.day)}::date[],
      ${deltas.map((d) => d.customerId)}::uuid[],
      ${deltas.map((d) => d.requests)}::bigint[],
      ${deltas.map((d) => d.errors)}::bigint[])
    on conflict (key_id, day) do update
      set requests = key_usage_daily.requests + excluded.requests,
          errors = key_usage_daily.errors + excluded.errors`.execute(db);
}

export async function requestsByKeyAndDay(db: Database, customerId: string, fromDay: string) {
  const rows = await db
    .selectFrom('key_usage_daily')
    .select([
      'key_id',
      sql<string>`day::text`.as('day'),
      sql<string>`requests::text`.as('requests'),
      sql<string>`errors::text`.as('errors'),
    ])
    .where('customer_id', '=', customerId)
    .where('day', '>=', fromDay)
    .execute();
  return rows.map((r) => ({
    keyId: r.key_id,
    day: r.day,
    requests: Number(r.requests),
    errors: Number(r.errors),
  }));
}

/** Outbound spend (reserved and settled) per key per UTC day, from the outbound module's ledger. */
export async function spendByKeyAndDay(db: Database, customerId: string, fromDay: string) {
  const rows = await db
    .selectFrom('spend_reservations')
    .select(['api_key_id', sql<string>`day::text`.as('day'), sql<string>`sum(amount_usd)::text`.as('amount')])
    .where('customer_id', '=', customerId)
    .where('day', '>=', fromDay)
    .groupBy(['api_key_id', 'day'])
    .execute();
  return rows.map((r) => ({ keyId: r.api_key_id, day: r.day, amountUsd: r.amount }));
}

/**
 * Outbound calls placed with an API key, grouped by destination number (the country is derived in code), with
 * their amounts in the outbound ledger: the same rows and days as `spendByKeyAndDay`, so the two add up alike.
 */
export async function keySpendByNumber(db: Database, customerId: string, fromDay: string) {
  const rows = await db
    .selectFrom('spend_reservations as r')
    .innerJoin('calls as c', 'c.id', 'r.call_id')
    .select([
      'c.to_number',
      sql<string>`count(*)::text`.as('calls'),
      sql<string>`sum(r.amount_usd)::text`.as('amount'),
    ])
    .where('r.customer_id', '=', customerId)
    .where('r.day', '>=', fromDay)
    .groupBy('c.to_number')
    .execute();
  return rows.map((r) => ({ toNumber: r.to_number, calls: Number(r.calls), amountUsd: r.amount }));
}

/**
 * Outbound calls since a time that are not in the ledger (placed without an API key: imported or demo history),
 * grouped by destination number, with their recorded cost.
 */
export async function unledgeredOutboundByNumber(db: Database, customerId: string, since: Date) {
  const rows = await db
    .selectFrom('calls as c')
    .select([
      'c.to_number',
      sql<string>`count(*)::text`.as('calls'),
      sql<string>`coalesce(sum(c.cost_usd), 0)::text`.as('cost'),
    ])
    .where('c.customer_id', '=', customerId)
    .where('c.direction', '=', 'outbound')
    .where('c.started_at', '>=', since)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(selectFrom('spend_reservations as r').select('r.call_id').whereRef('r.call_id', '=', 'c.id')),
      ),
    )
    .groupBy('c.to_number')
    .execute();
  return rows.map((r) => ({ toNumber: r.to_number, calls: Number(r.calls), costUsd: r.cost }));
}
