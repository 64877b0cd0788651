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
  /**
   * These calls of the customer were deleted, by its request (`DELETE /calls/{id}`) or at the end of their retention:
   * what names them without a foreign key (which cascades) is for the listener to drop.
   */
  removed(tx: Database, removal: RemovedCalls, now: Date): Promise<void>;
};

export type RemovedCalls = { customerId: string; callIds: readonly string[]; by: 'request' | 'retention' };

/** Reports to every listener in turn, in the order given. */
export function reportingTo(...listeners: CallReports[]): CallReports {
  return {
    async progressed(tx, call, step, now) {
      for (const listener of listeners) await listener.progressed(tx, call, step, now);
    },
    async finished(tx, call, outcome, now) {
      for (const listener of listeners) await listener.finished(tx, call, outcome, now);
    },
    async removed(tx, removal, now) {
      for (const listener of listeners) await listener.removed(tx, removal, now);
    },
  };
}
