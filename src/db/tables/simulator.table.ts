import type { Generated, Selectable } from 'kysely';

/** One call as the built-in simulator (the stand-in upstream provider) holds it. */
export interface SimulatorCallsTable {
  provider_call_id: string;
  /** The simulated provider account: every instance of a deployment shares one; each test app has its own. */
  account: string;
  /** Our call id for an outbound call: the placement's deduplication key. */
  call_id: string | null;
  conversation_id: string;
  /** jsonb: what the conversation's script is rebuilt from (simulator-script.ts `ScriptInput`). */
  script_input: unknown;
  /** jsonb: who rang, for an inbound call. */
  inbound: unknown;
  /** jsonb: the planned steps, each at its instant. */
  steps: unknown;
  /** Index of the first step not yet delivered. */
  next_step: Generated<number>;
  /** When that step is due; null once every step is delivered. */
  next_at: Date | null;
  leased_until: Date | null;
  placed_at: Date;
  /** When the last step is due. */
  ends_at: Date;
}
export type SimulatorCallRow = Selectable<SimulatorCallsTable>;

/** One outbound text message as the built-in simulator holds it, with the statuses it will report. */
export interface SimulatorMessagesTable {
  provider_message_id: string;
  account: string;
  /** Our message id: sending the same one twice answers the first. */
  message_id: string;
  to_number: string;
  /** jsonb: the planned status reports, each at its instant (sms-simulator.ts `PlannedStatus`). */
  steps: unknown;
  next_step: Generated<number>;
  next_at: Date | null;
  created_at: Date;
}
