import { sql } from 'kysely';
import type { Database } from '../db/index.ts';
import { type Loop, type LoopLogger, startLoop } from '../loop.ts';

/**
 * The vacuums autovacuum would run, where it does not. Nothing else removes the row versions that updates and
 * deletes leave behind: every claim would walk more dead entries of its queue's due index each day (each delivered
 * row leaves one; 125 ms per claim after 500,000 on a PostgreSQL server without autovacuum, and a delivery's
 * PostgreSQL cost rose from 89 to 121 µs over one drain of 1,000,000), and the planner would keep the statistics of
 * the day the tables were created.
 *
 * - PGlite has no autovacuum: the queues (updated on every claim and outcome) every minute, the whole database every
 *   hour. A vacuum holds PGlite's one session while it runs (milliseconds on the queues of a small installation;
 *   seconds for a first whole-database pass over millions of rows).
 * - PostgreSQL runs autovacuum (the outbox sets its own thresholds, migration 20261123_0100) unless its operator
 *   turned it off. Then the queues are ours to vacuum, every minute, as autovacuum would look at them (its default
 *   naptime); the rest of the database stays the operator's choice. The setting is read at each tick, since it can
 *   be changed without a restart.
 */
export const QUEUE_TABLES = [
  'webhook_deliveries',
  'callback_notifications',
  'transcript_jobs',
  'simulator_calls',
] as const;

export type VacuumLogger = LoopLogger & { warn(obj: object, msg: string): void };

/** Whether the server vacuums on its own: autovacuum needs `track_counts` too (PostgreSQL only). */
export async function autovacuumRuns(db: Database): Promise<boolean> {
  const { rows } = await sql<{ runs: boolean }>`
    select current_setting('autovacuum') = 'on' and current_setting('track_counts') = 'on' as runs`.execute(
    db,
  );
  return rows[0]?.runs ?? false;
}

/** One vacuum (with analyze) of the queues. */
export const vacuumQueues = (db: Database) =>
  sql`vacuum (analyze) ${sql.join(QUEUE_TABLES.map((t) => sql.table(t)))}`.execute(db);

/**
 * Starts what this database needs of us (stopping a loop waits for a vacuum under way). `runs` is how a tick learns
 * whether the server vacuums (tests replace it).
 */
export function startOwnVacuum(
  db: Database,
  kind: 'pglite' | 'postgres',
  logger: VacuumLogger,
  runs: (db: Database) => Promise<boolean> = autovacuumRuns,
): Loop[] {
  let warned = false;
  // PGlite never vacuums on its own; a PostgreSQL server does unless its autovacuum is off (said once per spell).
  const serverVacuums = async () => {
    if (kind === 'pglite') return false;
    if (await runs(db)) {
      warned = false;
      return true;
    }
    if (!warned) {
      logger.warn(
        {},
        "PostgreSQL's autovacuum is off: the worker vacuums its queues every minute; turn autovacuum on for the rest of the database",
      );
      warned = true;
    }
    return false;
  };
  const queues = startLoop({ name: 'queue vacuum', intervalMs: 60_000, logger }, async () => {
    if (!(await serverVacuums())) await vacuumQueues(db);
  });
  if (kind === 'postgres') return [queues];
  return [
    queues,
    startLoop({ name: 'vacuum', intervalMs: 3_600_000, logger }, () => sql`vacuum (analyze)`.execute(db)),
  ];
}
