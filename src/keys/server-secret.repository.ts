import type { Database } from '../db/index.ts';

export const readFingerprint = (
  db: Database,
): Promise<{ fingerprint: string; recorded_at: Date } | undefined> =>
  db.selectFrom('server_secret_fingerprint').select(['fingerprint', 'recorded_at']).executeTakeFirst();

/** Records `fingerprint` unless one is recorded already (two first starts at once: the first one wins). */
export async function recordFingerprintOnce(db: Database, fingerprint: string): Promise<void> {
  await db
    .insertInto('server_secret_fingerprint')
    .values({ fingerprint })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

export async function replaceFingerprint(db: Database, fingerprint: string, now: Date): Promise<void> {
  await db
    .insertInto('server_secret_fingerprint')
    .values({ fingerprint, recorded_at: now })
    .onConflict((oc) => oc.column('id').doUpdateSet({ fingerprint, recorded_at: now }))
    .execute();
}
