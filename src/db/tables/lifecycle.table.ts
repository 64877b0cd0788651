import type { Generated, Selectable } from 'kysely';

export type ProcessingState = 'none' | 'pending' | 'done';

/** Our side of a provider call: its upstream handle and the post-processing step after it ends. */
export interface CallLifecycleTable {
  call_id: string;
  customer_id: string;
  /** The provider's own id of the call; null until the provider has accepted an outbound call. */
  provider_call_id: string | null;
  /** The telephony carrier's id of the call (Twilio call SID, SIP call id) when the provider reports it. */
  carrier_call_id: string | null;
  processing_state: Generated<ProcessingState>;
  processing_attempts: Generated<number>;
  processing_due_at: Date | null;
  processing_error: string | null;
  processed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}
export type CallLifecycleRow = Selectable<CallLifecycleTable>;

export interface CallInsightsTable {
  call_id: string;
  name: string;
  customer_id: string;
  /** jsonb: the result's type depends on `name`. */
  result: unknown;
  position: number;
  created_at: Date;
}
