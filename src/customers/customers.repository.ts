import type { CustomerRow, Database } from '../db/index.ts';

export const insertCustomer = (db: Database, row: CustomerRow): Promise<CustomerRow> =>
  db.insertInto('customers').values(row).returningAll().executeTakeFirstOrThrow();

export const listCustomers = (db: Database): Promise<CustomerRow[]> =>
  db.selectFrom('customers').selectAll().orderBy('created_at').orderBy('id').execute();

export const updateCustomer = (
  db: Database,
  id: string,
  changes: Partial<
    Pick<CustomerRow, 'rate_limit_per_minute' | 'outbound_countries' | 'outbound_max_daily_cap_usd'>
  >,
): Promise<CustomerRow | undefined> =>
  db.updateTable('customers').set(changes).where('id', '=', id).returningAll().executeTakeFirst();

export const hasAnyCustomer = async (db: Database): Promise<boolean> =>
  (await db.selectFrom('customers').select('id').limit(1).executeTakeFirst()) !== undefined;
