import type { Database } from '../db/index.ts';
import type { RestSegment } from './transcript-format.ts';

/** The transcript stored for a call, if any. */
export async function findTranscript(db: Database, callId: string) {
  return db
    .selectFrom('transcripts')
    .select(['conversation_id', 'segments'])
    .where('call_id', '=', callId)
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
