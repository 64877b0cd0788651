import { sql } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/index.ts';

/**
 * Due deliveries waiting now, and how long the oldest has waited: the two numbers that say the worker keeps up.
 * Only those of active subscriptions: a disabled subscription's deliveries wait for it to be re-enabled, not for
 * a worker, and must not raise the alarm. Without a due index across subscriptions (dropped, since claims planned
 * over it: migration 20261129_0900) it reads every pending entry of another pending-only index: 55,000 due rows
 * took 27 ms on PostgreSQL and 134 ms on PGlite here, once every 30 s.
 */
export async function outboxStats(
  db: Database,
  clock: Clock,
): Promise<{ due: number; oldestDueSeconds: number }> {
  const now = clock.now();
  const { rows } = await sql<{ due: number; oldest: Date | null }>`
    select count(*)::int as due, min(next_attempt_at) as oldest
    from webhook_deliveries d
    where d.status = 'pending' and d.next_attempt_at <= ${now}
      and exists (select 1 from webhook_subscriptions s
                  where s.id = d.subscription_id and s.is_active and s.deleted_at is null)`.execute(db);
  const row = rows[0];
  const oldest = row?.oldest ? new Date(row.oldest) : null;
  return {
    due: row?.due ?? 0,
    oldestDueSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0,
  };
}
