import { sql } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';

/** Due deliveries waiting now, and how long the oldest has waited: the two numbers that say the worker keeps up. */
export async function outboxStats(
  db: Database,
  clock: Clock,
): Promise<{ due: number; oldestDueSeconds: number }> {
  const now = clock.now();
  const { rows } = await sql<{ due: number; oldest: Date | null }>`
    select count(*)::int as due, min(next_attempt_at) as oldest
    from webhook_deliveries where status = 'pending' and next_attempt_at <= ${now}`.execute(db);
  const row = rows[0];
  const oldest = row?.oldest ? new Date(row.oldest) : null;
  return {
    due: row?.due ?? 0,
    oldestDueSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0,
  };
}
