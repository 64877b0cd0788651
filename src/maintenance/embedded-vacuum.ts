import { sql } from 'kysely';
import type { Database } from '../db/index.ts';
import { type Loop, type LoopLogger, startLoop } from '../loop.ts';

/**
 * PGlite has no autovacuum: nothing ever removes the row versions that updates and deletes leave behind, so on the
 * embedded default every claim would walk more dead entries of its queue's due index each day (each delivered row
 * leaves one; 125 ms per claim after 500,000 on a PostgreSQL server without autovacuum), and the planner would keep
 * the statistics of the day the tables were created. The worker vacuums on PGlite instead: the queues (updated on
 * every claim and outcome) every minute, the whole database every hour. A vacuum holds PGlite's one session while
 * it runs (milliseconds on the queues of a small installation; seconds for a first whole-database pass over millions
 * of rows). On PostgreSQL, autovacuum does this (the outbox sets its own thresholds, migration 20261123_0100).
 */
export const QUEUE_TABLES = [
  'webhook_deliveries',
  'callback_notifications',
  'transcript_jobs',
  'simulator_calls',
] as const;

/** Starts both schedules (stopping a loop waits for a vacuum under way). */
export function startEmbeddedVacuum(db: Database, logger: LoopLogger): Loop[] {
  return [
    startLoop({ name: 'queue vacuum', intervalMs: 60_000, logger }, () =>
      sql`vacuum (analyze) ${sql.join(QUEUE_TABLES.map((t) => sql.table(t)))}`.execute(db),
    ),
    startLoop({ name: 'vacuum', intervalMs: 3_600_000, logger }, () => sql`vacuum (analyze)`.execute(db)),
  ];
}
