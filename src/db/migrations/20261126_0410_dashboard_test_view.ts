import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * The dashboard's "Viewing test data" switch (issue 37): a session viewing test data names the customer's test twin,
 * whose data its pages show; null is the live view. A purged twin (customers purge-test-data) puts it back to live.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `alter table dashboard_sessions add column test_customer_id uuid references customers(id) on delete set null`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [`alter table dashboard_sessions drop column test_customer_id`]);
}
