import type { Database } from '../db/index.ts';

/** The email of the customer's first dashboard user, or null if it has none (the server's start-up hints). */
export async function firstUserEmail(db: Database, customerId: string): Promise<string | null> {
  const row = await db
    .selectFrom('dashboard_users')
    .select('email')
    .where('customer_id', '=', customerId)
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst();
  return row?.email ?? null;
}
