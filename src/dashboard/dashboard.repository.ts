import { sql } from 'kysely';
import type { Database } from '../db/database.ts';

/** Read-only queries the dashboard needs that no other module exposes; every one is scoped by customer. */

/** When the newest rotated-out value of each key stops working (only keys still in a grace period). */
export async function graceEnds(db: Database, customerId: string, now: Date): Promise<Map<string, Date>> {
  const rows = await db
    .selectFrom('api_key_secrets as s')
    .innerJoin('api_keys as k', 'k.id', 's.key_id')
    .select(['s.key_id', sql<Date>`max(s.valid_until)`.as('until')])
    .where('k.customer_id', '=', customerId)
    .where('s.valid_until', '>', now)
    .groupBy('s.key_id')
    .execute();
  return new Map(rows.map((r) => [r.key_id, new Date(r.until)]));
}

/** The AI insights of one call (spec 6.4 call.insight.received), in the order they were produced. */
export async function callInsights(db: Database, customerId: string, callId: string) {
  return db
    .selectFrom('call_insights')
    .select(['name', 'result'])
    .where('customer_id', '=', customerId)
    .where('call_id', '=', callId)
    .orderBy('position')
    .execute();
}
