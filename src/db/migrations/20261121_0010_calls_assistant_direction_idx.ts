import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

// GET /calls?assistant_id=…&direction=… must stay a pure range scan: with only
// calls_customer_assistant_started_idx, asking an outbound-only assistant for its inbound calls would
// read every one of its calls to return none. The columns never change after insert, so updates stay HOT.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `create index calls_customer_assistant_direction_started_idx
      on calls (customer_id, assistant_id, direction, started_at desc, id desc)`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [`drop index calls_customer_assistant_direction_started_idx`]);
}
