import type { Generated, Selectable } from 'kysely';

export const EVENT_TYPES = [
  'call.completed',
  'call.insight.received',
  'call.transcript.ready',
  'sms.received',
  'sms.sent',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface EventsTable {
  id: string;
  customer_id: string;
  type: EventType;
  call_id: string | null;
  /** The text message of an `sms.*` event (then `call_id` is null). */
  message_id: Generated<string | null>;
  sequence: number;
  /** The `data` object of the webhook envelope, exactly as delivered. */
  data: unknown;
  occurred_at: Date;
  /** False for a test-mode event (its call's, or a test event sent to a test-mode subscription). */
  livemode: Generated<boolean>;
}
export type EventRow = Selectable<EventsTable>;
