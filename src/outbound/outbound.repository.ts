import type { Database } from '../db/database.ts';
import type { NewCall } from '../db/tables/calls.table.ts';

/** Inserts the queued call; a resumed placement finds its row already there and keeps it. */
export async function insertOutboundCall(tx: Database, row: NewCall): Promise<void> {
  await tx
    .insertInto('calls')
    .values(row)
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/** Removes a call the provider never took; its lifecycle row and spend reservation go with it. */
export async function deleteCall(tx: Database, callId: string): Promise<void> {
  await tx.deleteFrom('calls').where('id', '=', callId).execute();
}
