import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Room on each page of the outbox for the claim's update (lease and attempt count, no indexed column) to stay on its
 * page, a heap-only update with no new entry in any of the outbox's six indexes. Filled to the brim, nearly every
 * claim moved its rows: 31 % of the outbox's updates were heap-only, 49 % at 70 (nearly every claim), and PostgreSQL
 * spent 53–54 µs per delivery against 60–63 (docs/performance.md, "2026-11-26"). Pages written before keep their fill.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [`alter table webhook_deliveries set (fillfactor = 70)`]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [`alter table webhook_deliveries reset (fillfactor)`]);
}
