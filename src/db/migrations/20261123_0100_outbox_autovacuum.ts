import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * The outbox is vacuumed often. A delivered row leaves its entry in the due index until a vacuum removes it, and
 * each claim walks from the oldest entry: with PostgreSQL's default (a vacuum once a fifth of the table is dead),
 * a drain of 1,000,000 deliveries had every claim step over hundreds of thousands of dead entries (125 ms per
 * claim at 500,000 delivered, measured). One per cent, or 1,000 rows, whichever is more, keeps that walk short.
 * PGlite has no autovacuum; the setting is stored and ignored there.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `alter table webhook_deliveries set (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000)`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `alter table webhook_deliveries reset (autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold)`,
  ]);
}
