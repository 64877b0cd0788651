import { sql } from 'kysely';
import type { Database } from '../db/database.ts';

/** Vacuums so far per table (PGlite keeps these counts; its tuple counts are not reported). */
export async function vacuumCounts(db: Database): Promise<Record<string, number>> {
  const { rows } = await sql<{ relname: string; vacuum_count: string }>`
    select relname, vacuum_count from pg_stat_user_tables`.execute(db);
  return Object.fromEntries(rows.map((r) => [r.relname, Number(r.vacuum_count)]));
}

/** The counts once `done` holds for them (a vacuum started by a timer runs on its own). */
export async function vacuumCountsOnce(
  db: Database,
  done: (counts: Record<string, number>) => boolean,
): Promise<Record<string, number>> {
  const deadline = Date.now() + 20_000;
  let counts = await vacuumCounts(db);
  while (!done(counts) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    counts = await vacuumCounts(db);
  }
  return counts;
}
