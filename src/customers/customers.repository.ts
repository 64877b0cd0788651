import type { CustomerRow, Database } from '../db/index.ts';

export const insertCustomer = (db: Database, row: CustomerRow): Promise<CustomerRow> =>
  db.insertInto('customers').values(row).returningAll().executeTakeFirstOrThrow();

/** Customers, not their test twins (those are a customer's test data, not customers of their own). */
export const listCustomers = (db: Database): Promise<CustomerRow[]> =>
  db
    .selectFrom('customers')
    .selectAll()
    .where('live_customer_id', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

export const updateCustomer = (
  db: Database,
  id: string,
  changes: Partial<
    Pick<CustomerRow, 'rate_limit_per_minute' | 'outbound_countries' | 'outbound_max_daily_cap_usd'>
  >,
): Promise<CustomerRow | undefined> =>
  db.updateTable('customers').set(changes).where('id', '=', id).returningAll().executeTakeFirst();

/** Deletes a customer's test twin, and with it (the foreign keys cascade) every test-mode object; its id, if any. */
export async function deleteTestTwin(db: Database, liveCustomerId: string): Promise<string | null> {
  const row = await db
    .deleteFrom('customers')
    .where('live_customer_id', '=', liveCustomerId)
    .returning('id')
    .executeTakeFirst();
  return row?.id ?? null;
}

export const hasAnyCustomer = async (db: Database): Promise<boolean> =>
  (await db.selectFrom('customers').select('id').limit(1).executeTakeFirst()) !== undefined;
