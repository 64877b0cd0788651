import { sql } from 'kysely';
import { takeEventSequences } from '../calls/index.ts';
import type { Database, EventRow, EventType } from '../db/index.ts';
import { newTimeOrderedUuid } from '../ids.ts';
import { outboxOfInsertedEvents } from './outbox.ts';

export type NewEvent = {
  customerId: string;
  type: EventType;
  callId: string;
  data: Record<string, unknown>;
  occurredAt: Date;
};

/**
 * Records a domain event and the outbox rows that follow it (`outboxOfInsertedEvents`). Call it with the transaction
 * that makes the state change the event reports, so a crash can neither lose the event nor invent one.
 */
export async function recordEvent(tx: Database, event: NewEvent): Promise<EventRow> {
  const [row] = await recordEvents(tx, [event]);
  if (!row) throw new Error('event not recorded');
  return row;
}

export type NewMessageEvent = {
  customerId: string;
  type: 'sms.sent' | 'sms.received';
  messageId: string;
  livemode: boolean;
  data: Record<string, unknown>;
  occurredAt: Date;
};

/**
 * Records a text message's event and its outbox rows, in the transaction that made the change it reports. A message
 * has one event (`sms.sent` at its final status, `sms.received` on arrival): its sequence is 1.
 */
export async function recordMessageEvent(tx: Database, e: NewMessageEvent): Promise<void> {
  await sql`
    with ev as (
      insert into events (id, customer_id, type, call_id, message_id, sequence, data, occurred_at, livemode)
      values (${newTimeOrderedUuid()}, ${e.customerId}, ${e.type}, null, ${e.messageId}, 1, ${JSON.stringify(e.data)}::jsonb,
        ${e.occurredAt.toISOString()}::timestamptz, ${e.livemode})
      returning *
    ),
    ${outboxOfInsertedEvents()}
    select (select count(*) from notified) as notified`.execute(tx);
}

/**
 * Records events in the order given, with their outbox rows, in one statement: each call's counter is taken once
 * for all of its events (locking the call row, so the events of one call get gap-free, ordered numbers), then the
 * events, their deliveries and transcript jobs are inserted. Throws when a call does not exist.
 */
export async function recordEvents(tx: Database, events: NewEvent[]): Promise<EventRow[]> {
  if (events.length === 0) return [];
  const input = events.map((e, ord) => ({
    ord,
    id: newTimeOrderedUuid(),
    customer_id: e.customerId,
    type: e.type,
    call_id: e.callId,
    data: e.data,
    occurred_at: e.occurredAt.toISOString(),
  }));
  // JSON rather than parameter arrays: one parameter, and `data` stays the object it is.
  const { rows } = await sql<EventRow & { notified: unknown }>`
    with input as (
      select * from jsonb_to_recordset(${JSON.stringify(input)}::jsonb) as i(
        ord int, id uuid, customer_id uuid, type text, call_id uuid, data jsonb, occurred_at timestamptz)
    ),
    ${takeEventSequences()},
    ev as (
      insert into events (id, customer_id, type, call_id, sequence, data, occurred_at, livemode)
      select i.id, i.customer_id, i.type, i.call_id,
        b.event_seq - count(*) over (partition by i.call_id)
          + row_number() over (partition by i.call_id order by i.ord),
        i.data, i.occurred_at, b.livemode
      from input i join bumped b on b.id = i.call_id
      returning *
    ),
    ${outboxOfInsertedEvents()}
    select ev.*, (select count(*) from notified) as notified from ev`.execute(tx);
  const byId = new Map(rows.map(({ notified: _, ...row }) => [row.id, row]));
  return input.map((i) => {
    const row = byId.get(i.id);
    if (!row) throw new Error(`call ${i.call_id} does not exist: event not recorded`);
    return row;
  });
}
