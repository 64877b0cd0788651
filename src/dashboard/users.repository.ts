import type { DashboardUserRow, Database } from '../db/index.ts';

export async function insertUser(db: Database, row: DashboardUserRow): Promise<DashboardUserRow | undefined> {
  return db
    .insertInto('dashboard_users')
    .values(row)
    .onConflict((oc) => oc.column('email').doNothing())
    .returningAll()
    .executeTakeFirst();
}

export const findByEmail = (db: Database, email: string): Promise<DashboardUserRow | undefined> =>
  db.selectFrom('dashboard_users').selectAll().where('email', '=', email).executeTakeFirst();

export const findById = (db: Database, id: string): Promise<DashboardUserRow | undefined> =>
  db.selectFrom('dashboard_users').selectAll().where('id', '=', id).executeTakeFirst();

export const listByCustomer = (db: Database, customerId: string): Promise<DashboardUserRow[]> =>
  db
    .selectFrom('dashboard_users')
    .selectAll()
    .where('customer_id', '=', customerId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

export async function setPasswordHash(db: Database, id: string, passwordHash: string): Promise<boolean> {
  const r = await db
    .updateTable('dashboard_users')
    .set({ password_hash: passwordHash })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function touchLogin(db: Database, id: string, at: Date): Promise<void> {
  await db.updateTable('dashboard_users').set({ last_login_at: at }).where('id', '=', id).execute();
}
