import { customerNameOf } from '../customers/index.ts';
import type { DashboardSessionRow, Database } from '../db/index.ts';

export async function insertSession(db: Database, row: DashboardSessionRow): Promise<void> {
  await db.insertInto('dashboard_sessions').values(row).execute();
}

/** The session with its user's email and customer's name (every page shows them), in one statement. */
export const findByTokenHash = (db: Database, tokenHash: string) =>
  db
    .selectFrom('dashboard_sessions as s')
    .innerJoin('dashboard_users as u', 'u.id', 's.user_id')
    .selectAll('s')
    .select(['u.email', customerNameOf('s.customer_id').as('customer_name')])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();

export async function deleteSession(db: Database, id: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('id', '=', id).execute();
}

export async function deleteSessionsOfUser(db: Database, userId: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('user_id', '=', userId).execute();
}

export async function touchSession(db: Database, id: string, at: Date): Promise<void> {
  await db.updateTable('dashboard_sessions').set({ last_seen_at: at }).where('id', '=', id).execute();
}

export async function setTestView(db: Database, id: string, testCustomerId: string | null): Promise<void> {
  await db
    .updateTable('dashboard_sessions')
    .set({ test_customer_id: testCustomerId })
    .where('id', '=', id)
    .execute();
}

export async function setFlash(db: Database, id: string, sealed: string | null): Promise<void> {
  await db.updateTable('dashboard_sessions').set({ flash_encrypted: sealed }).where('id', '=', id).execute();
}

/** Clears the flash only if it is still the one read, so two pages never both show a one-time secret. */
export async function clearFlash(db: Database, id: string, sealed: string): Promise<boolean> {
  const r = await db
    .updateTable('dashboard_sessions')
    .set({ flash_encrypted: null })
    .where('id', '=', id)
    .where('flash_encrypted', '=', sealed)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Sessions past their absolute end or idle longer than the idle limit. */
export async function purgeExpired(db: Database, now: Date, idleCutoff: Date): Promise<number> {
  const r = await db
    .deleteFrom('dashboard_sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', idleCutoff)]))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
