import type { Generated, Selectable } from 'kysely';

export type SmsStatus = 'queued' | 'sending' | 'sent' | 'delivered' | 'undelivered' | 'failed' | 'received';

/** One text message, sent by an assistant (`outbound`) or to one of its numbers (`inbound`). */
export interface SmsMessagesTable {
  /** `sms_` and 24 hex characters. */
  id: string;
  customer_id: string;
  /** The key that sent it; null for an inbound message (or once that key is deleted). */
  api_key_id: string | null;
  assistant_id: string;
  livemode: Generated<boolean>;
  direction: 'outbound' | 'inbound';
  from_number: string;
  to_number: string;
  body: string;
  encoding: 'GSM-7' | 'UCS-2';
  segments: number;
  status: SmsStatus;
  /** Who carried it: `simulator` or `twilio`. */
  provider: string;
  provider_message_id: string | null;
  error_code: string | null;
  error_message: string | null;
  external_id: string | null;
  metadata: unknown;
  /** numeric(12,4) as a decimal string: the estimate until the final status, then what it cost. */
  cost_usd: Generated<string>;
  created_at: Date;
  updated_at: Date;
  /** When it reached a final status (delivered, undelivered, failed; received on arrival). */
  final_at: Date | null;
}
export type SmsMessageRow = Selectable<SmsMessagesTable>;

export interface SmsStatusHistoryTable {
  message_id: string;
  status: SmsStatus;
  error_code: string | null;
  at: Date;
}

export interface SmsOptOutsTable {
  livemode: boolean;
  sender: string;
  recipient: string;
  opted_out_at: Date;
}
