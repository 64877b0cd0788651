import type { Database } from '../db/database.ts';

/** The two oldest customers, each with the email of its first dashboard user (null if it has none). */
export const oldestCustomers = (db: Database): Promise<{ id: string; user_email: string | null }[]> =>
  db
    .selectFrom('customers as c')
    .select((eb) => [
      'c.id',
      eb
        .selectFrom('dashboard_users as u')
        .select('u.email')
        .whereRef('u.customer_id', '=', 'c.id')
        .orderBy('u.created_at')
        .limit(1)
        .as('user_email'),
    ])
    .orderBy('c.created_at')
    .orderBy('c.id')
    .limit(2)
    .execute();
