import { sql } from 'kysely';
import type { Database } from '../db/index.ts';

/** Read functions over calls for the usage page; every one is scoped by customer. */

/** The destination number of each of these calls of the customer. */
export async function destinationsOf(db: Database, customerId: string, callIds: readonly string[]) {
  if (callIds.length === 0) return new Map<string, string>();
  const rows = await db
    .selectFrom('calls')
    .select(['id', 'to_number'])
    .where('customer_id', '=', customerId)
    .where(sql<boolean>`id = any(${[...callIds]}::uuid[])`)
    .execute();
  return new Map(rows.map((r) => [r.id, r.to_number]));
}

/** The customer's outbound calls started since a time, with their destination and recorded cost. */
export async function outboundCallsSince(db: Database, customerId: string, since: Date) {
  const rows = await db
    .selectFrom('calls')
    .select(['id', 'to_number', sql<string>`coalesce(cost_usd, 0)::text`.as('cost')])
    .where('customer_id', '=', customerId)
    .where('direction', '=', 'outbound')
    .where('started_at', '>=', since)
    .execute();
  return rows.map((r) => ({ id: r.id, toNumber: r.to_number, costUsd: r.cost }));
}
