import type { Database } from '../db/database.ts';
import { newUuid } from '../ids.ts';
import { enqueueDeliveries } from '../webhooks/fan-out.ts';
import { enqueueTranscriptJob } from '../webhooks/transcript-jobs.repository.ts';
import type { EventRow, EventType } from './events.table.ts';

export type NewEvent = {
  customerId: string;
  type: EventType;
  callId: string;
  data: Record<string, unknown>;
  occurredAt: Date;
};

/**
 * Records a domain event and its webhook deliveries (the outbox). Call it with the transaction that makes
 * the state change the event reports, so a crash can neither lose the event nor invent one.
 */
export async function recordEvent(tx: Database, event: NewEvent): Promise<EventRow> {
  const { event_seq } = await tx
    .updateTable('calls')
    .set((eb) => ({ event_seq: eb('event_seq', '+', 1) }))
    .where('id', '=', event.callId)
    .returning('event_seq')
    .executeTakeFirstOrThrow();
  const row = await tx
    .insertInto('events')
    .values({
      id: newUuid(),
      customer_id: event.customerId,
      type: event.type,
      call_id: event.callId,
      sequence: event_seq,
      data: JSON.stringify(event.data),
      occurred_at: event.occurredAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await enqueueDeliveries(tx, row);
  await enqueueTranscriptJob(tx, row);
  return row;
}
