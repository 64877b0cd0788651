import { type RawBuilder, sql } from 'kysely';
import type { Database, NewCall } from '../db/index.ts';
import { CALL_COLUMNS, type CallColumn, emptyCallValue } from './new-call.ts';

/** Bulk insert in chunks that stay under PostgreSQL's 65,535 bind-parameter limit. */
export async function insertCalls(db: Database, rows: NewCall[]): Promise<void> {
  const chunk = 1_000;
  for (let i = 0; i < rows.length; i += chunk) {
    await db
      .insertInto('calls')
      .values(rows.slice(i, i + chunk))
      .execute();
  }
}

/**
 * Bulk insert of the calls a query makes inside the database (`source`, whose rows name the `given` columns), so a
 * million rows never cross the wire. Every column it does not give takes a new call's value (`newCallRow`), so a
 * generated call has the shape of a live one.
 */
export async function insertCallsSelected(
  db: Database,
  given: readonly CallColumn[],
  source: RawBuilder<unknown>,
): Promise<void> {
  const values = CALL_COLUMNS.map((column) =>
    given.includes(column) ? sql.ref(`s.${column}`) : sql.lit(emptyCallValue(column)),
  );
  await sql`insert into calls (${sql.join(CALL_COLUMNS.map((column) => sql.ref(column)))})
    select ${sql.join(values)} from (${source}) as s`.execute(db);
}

/**
 * A transcript of the call is stored: `has_transcript` becomes true and, when that changes the call, `updated_at`
 * moves to `now` (the injected clock's), so a client polling with `updated_since` sees it.
 */
export async function markHasTranscript(tx: Database, callId: string, now: Date): Promise<void> {
  await tx
    .updateTable('calls')
    .set({ has_transcript: true, updated_at: now })
    .where('id', '=', callId)
    .where('has_transcript', '=', false)
    .execute();
}
