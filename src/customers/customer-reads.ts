import { type RawBuilder, sql } from 'kysely';
import type { CustomerRow, Database } from '../db/index.ts';
import { prepare } from '../db/index.ts';

/** Read functions over customers for the modules that hold a customer id: keys, dashboard sessions and users. */

export const findCustomer = (db: Database, id: string): Promise<CustomerRow | undefined> =>
  db.selectFrom('customers').selectAll().where('id', '=', id).executeTakeFirst();

export type StoredLimits = Pick<CustomerRow, 'id' | 'outbound_countries' | 'outbound_max_daily_cap_usd'>;

/** The stored outbound limits of these customers (null columns follow the defaults). */
export const findLimits = (db: Database, ids: readonly string[]): Promise<StoredLimits[]> =>
  ids.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('customers')
        .select(['id', 'outbound_countries', 'outbound_max_daily_cap_usd'])
        .where('id', 'in', ids)
        .execute();

/** What authentication holds of a key's customer: its name, its plan's window, its outbound limits. */
const authCustomer = prepare((db, p: { id: string }) =>
  db
    .selectFrom('customers')
    .select([
      'name as customer_name',
      'rate_limit_per_minute',
      'outbound_countries',
      'outbound_max_daily_cap_usd',
    ])
    .where('id', '=', p.id),
);

export type AuthCustomer = Awaited<ReturnType<typeof authCustomer>>[number];

export async function findAuthCustomer(db: Database, id: string): Promise<AuthCustomer | undefined> {
  const [row] = await authCustomer(db, { id });
  return row;
}

/**
 * The name of the customer `customerId` names (a column reference such as `s.customer_id`), as an expression another
 * module's query selects: one primary-key lookup in the same statement, the customers table named only here.
 */
export const customerNameOf = (customerId: string): RawBuilder<string> =>
  sql<string>`(select c.name from customers c where c.id = ${sql.ref(customerId)})`;

/** The ids of the `limit` oldest customers, oldest first. */
export async function oldestCustomerIds(db: Database, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('customers')
    .select('id')
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}
