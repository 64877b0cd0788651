import type { Database } from '../db/database.ts';
import type { RestSegment } from './transcript-format.ts';

/** One call of one customer, with its assistant's language and its stored transcript if any. */
export async function findCallTranscript(db: Database, customerId: string, callId: string) {
  return db
    .selectFrom('calls as c')
    .innerJoin('assistants as a', 'a.id', 'c.assistant_id')
    .leftJoin('transcripts as t', 't.call_id', 'c.id')
    .select([
      'c.id',
      'c.direction',
      'c.api_initiated',
      'c.status',
      'c.assistant_id',
      'c.conversation_id',
      'c.started_at',
      'c.answered_at',
      'c.duration_seconds',
      'a.language',
      't.conversation_id as stored_conversation_id',
      't.segments',
    ])
    .where('c.id', '=', callId)
    .where('c.customer_id', '=', customerId)
    .executeTakeFirst();
}

/** Stores a transcript once: a concurrent fetch of the same one changes nothing. */
export async function insertTranscript(
  tx: Database,
  row: { callId: string; customerId: string; conversationId: string; segments: RestSegment[]; now: Date },
): Promise<void> {
  await tx
    .insertInto('transcripts')
    .values({
      call_id: row.callId,
      customer_id: row.customerId,
      conversation_id: row.conversationId,
      segments: JSON.stringify(row.segments),
      created_at: row.now,
    })
    .onConflict((oc) => oc.column('call_id').doNothing())
    .execute();
}

export async function markHasTranscript(tx: Database, callId: string): Promise<void> {
  await tx.updateTable('calls').set({ has_transcript: true }).where('id', '=', callId).execute();
}
