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

/**
 * What authentication holds of a key's customer: its name, its plan's window, its outbound limits, and its test
 * twin (the customer row its test keys' data lives under), if it has one.
 */
const authCustomer = prepare((db, p: { id: string }) =>
  db
    .selectFrom('customers as c')
    .select([
      'c.name as customer_name',
      'c.rate_limit_per_minute',
      'c.outbound_countries',
      'c.outbound_max_daily_cap_usd',
      sql<string | null>`(select t.id from customers t where t.live_customer_id = c.id)`.as(
        'test_customer_id',
      ),
    ])
    .where('c.id', '=', p.id),
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

/** False for a test twin (its subscriptions' test events are test-mode events). */
export async function isLiveCustomer(db: Database, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('customers')
    .select('live_customer_id')
    .where('id', '=', id)
    .executeTakeFirst();
  return !row?.live_customer_id;
}

/** The ids of the `limit` oldest customers, oldest first. */
export async function oldestCustomerIds(db: Database, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('customers')
    .select('id')
    .where('live_customer_id', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * The test twin of a live customer: the customer row its test-mode data lives under, made at its first test key.
 * Inside the caller's transaction; a concurrent first one finds the row the other made.
 */
export async function ensureTestTwin(
  db: Database,
  liveCustomerId: string,
  id: string,
  now: Date,
): Promise<string> {
  await sql`
    insert into customers (id, name, rate_limit_per_minute, live_customer_id, created_at)
    select ${id}, c.name, c.rate_limit_per_minute, c.id, ${now} from customers c
    where c.id = ${liveCustomerId} and c.live_customer_id is null
    on conflict (live_customer_id) where live_customer_id is not null do nothing`.execute(db);
  const twin = await db
    .selectFrom('customers')
    .select('id')
    .where('live_customer_id', '=', liveCustomerId)
    .executeTakeFirst();
  if (!twin) throw new Error(`customer ${liveCustomerId} has no test twin and cannot have one`);
  return twin.id;
}
