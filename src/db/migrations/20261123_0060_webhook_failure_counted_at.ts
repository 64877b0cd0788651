import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Counts from before it have no time (null): their next failure counts, as it did then.
  await runStatements(db, [`alter table webhook_subscriptions add column failure_counted_at timestamptz`]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [`alter table webhook_subscriptions drop column failure_counted_at`]);
}
