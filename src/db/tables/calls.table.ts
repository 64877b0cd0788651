import type { Generated, Insertable, Selectable } from 'kysely';

export type CallDirection = 'inbound' | 'outbound';

export interface CallsTable {
  id: string;
  customer_id: string;
  assistant_id: string;
  direction: CallDirection;
  status: string;
  started_at: Date;
  answered_at: Date | null;
  ended_at: Date | null;
  duration_seconds: number | null;
  from_number: string;
  to_number: string;
  caller_name: string | null;
  api_initiated: boolean;
  api_key_id: string | null;
  external_id: string | null;
  variables: unknown;
  metadata: unknown;
  callback_url: string | null;
  has_transcript: boolean;
  recording_available: boolean;
  summary: string | null;
  disconnect_reason: string | null;
  conversation_id: string | null;
  /** numeric(12,4), read as a decimal string so money never passes through binary floating point in storage. */
  cost_usd: string | null;
  billable_seconds: number | null;
  created_at: Date;
  updated_at: Date;
  /** Last event sequence number given out for this call. */
  event_seq: Generated<number>;
  /** False for a test-mode call (a `svc_test_` key's, under the customer's test twin): never billed. */
  livemode: Generated<boolean>;
}
export type CallRow = Selectable<CallsTable>;
export type NewCall = Insertable<CallsTable>;
