import type { Database } from '../db/database.ts';
import type { CallRow } from '../db/tables/calls.table.ts';

/**
 * What the lifecycle reports while a call moves on, inside the transaction of each change, to whoever the
 * composition (services.ts) hands it: outbound calls turn these into status callbacks and the settled spend.
 * The lifecycle never imports its listeners, so the path of a finished call runs one way.
 */
export type CallReports = {
  /** The call started ringing, or was answered. */
  progressed(tx: Database, call: CallRow, step: 'call.ringing' | 'call.answered', now: Date): Promise<void>;
  /** Post-processing gave the call its final values, at `costUsd`. */
  finished(tx: Database, call: CallRow, costUsd: string, now: Date): Promise<void>;
};
