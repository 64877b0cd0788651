import { sql } from 'kysely';
import type { Database } from '../db/index.ts';

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
