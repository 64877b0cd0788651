import type { CallRow, Database } from '../db/index.ts';

export type CallInsight = { name: string; result: unknown };

/**
 * What calls report while a call moves on, inside the transaction of each change, to whoever the composition
 * (`callListeners`) hands it: webhooks record the call's events, outbound calls turn them into status callbacks
 * and the settled spend. Calls never import their listeners, so the path of a finished call runs one way.
 */
export type CallReports = {
  /** The call started ringing, or was answered. */
  progressed(tx: Database, call: CallRow, step: 'call.ringing' | 'call.answered', now: Date): Promise<void>;
  /** Post-processing gave the call its final values, at `costUsd`, with the provider's insights. */
  finished(
    tx: Database,
    call: CallRow,
    outcome: { costUsd: string; insights: CallInsight[] },
    now: Date,
  ): Promise<void>;
};

/** Reports to every listener in turn, in the order given. */
export function reportingTo(...listeners: CallReports[]): CallReports {
  return {
    async progressed(tx, call, step, now) {
      for (const listener of listeners) await listener.progressed(tx, call, step, now);
    },
    async finished(tx, call, outcome, now) {
      for (const listener of listeners) await listener.finished(tx, call, outcome, now);
    },
  };
}
