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
