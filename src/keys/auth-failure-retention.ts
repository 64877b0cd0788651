import type { Database } from '../db/index.ts';

/** Deletes the recorded authentication failures older than `cutoff`; returns how many. */
export async function purgeAuthFailures(db: Database, cutoff: Date): Promise<number> {
  const failures = await db.deleteFrom('auth_failures').where('occurred_at', '<', cutoff).executeTakeFirst();
  return Number(failures.numDeletedRows);
}
