import type { Database } from '../db/index.ts';

/** The largest daily cap the operator allows each key of the customer; null: the default. */
export async function customerMaxDailyCap(db: Database, customerId: string): Promise<string | null> {
  const row = await db
    .selectFrom('customers')
    .select('outbound_max_daily_cap_usd')
    .where('id', '=', customerId)
    .executeTakeFirst();
  return row?.outbound_max_daily_cap_usd ?? null;
}
