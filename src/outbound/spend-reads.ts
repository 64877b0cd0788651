import { sql } from 'kysely';
import type { Database } from '../db/index.ts';

/** Read functions over the outbound ledger (spend_reservations) for the usage page; every one is scoped. */

/** Outbound spend (reserved and settled, calls and text messages) per key per UTC day from `fromDay` on. */
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

/** The ledger amount of each call placed with a key from `fromDay` on (one row per call). */
export async function spendByCall(db: Database, customerId: string, fromDay: string) {
  const rows = await db
    .selectFrom('spend_reservations')
    .select([sql<string>`call_id::text`.as('call_id'), sql<string>`amount_usd::text`.as('amount')])
    .where('customer_id', '=', customerId)
    .where('day', '>=', fromDay)
    .where('call_id', 'is not', null)
    .execute();
  return rows.map((r) => ({ callId: r.call_id, amountUsd: r.amount }));
}

/** Which of these calls are in the ledger (placed with a key), whatever their day. */
export async function ledgeredCalls(db: Database, callIds: readonly string[]): Promise<Set<string>> {
  if (callIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('spend_reservations')
    .select(sql<string>`call_id::text`.as('call_id'))
    .where(sql<boolean>`call_id = any(${[...callIds]}::uuid[])`)
    .execute();
  return new Set(rows.map((r) => r.call_id));
}
