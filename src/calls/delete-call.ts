import type { Clock } from '../clock.ts';
import type { Database } from '../db/index.ts';
import { AppError, notFound } from '../errors/index.ts';
import type { CallReports } from './call-reports.ts';
import { isTerminal } from './call-status.ts';
import * as repo from './retention.repository.ts';
import { insertTombstone, purgeTombstones } from './tombstones.repository.ts';

/** Calls deleted by one statement of the retention loop: about a tenth of a second of locks (docs/call-data.md). */
export const RETENTION_BATCH = 500;

/**
 * A tombstone is kept this long: far past every redelivery of a provider (ElevenLabs' reconciliation looks back two
 * hours, the simulator keeps a call 48 hours), after which nothing can name the call again.
 */
export const TOMBSTONE_DAYS = 30;

export type CallRemovalDeps = { db: Database; clock: Clock; reports: CallReports };

/** Deleting calls: one on the customer's request, or those past their retention, and the tombstones left behind. */
export function createCallRemoval(deps: CallRemovalDeps) {
  const { db, clock } = deps;
  return {
    /**
     * DELETE /calls/{id}: the call and everything that carries its content, in one transaction holding its row
     * lock; its tombstone stays, so a late provider event or a retried request never makes it again. A call not yet
     * finished (still going on, or its post-processing and billing not done) is refused: `call.in_progress`.
     * Another customer's call is a 404, as a missing one is.
     */
    async deleteCall(customerId: string, callId: string): Promise<void> {
      const now = clock.now();
      await db.transaction().execute(async (tx) => {
        const found = await repo.lockCustomerCall(tx, customerId, callId);
        if (!found) throw notFound('Call');
        const { call, processing, providerCallId } = found;
        if (!isTerminal(call.status) || (processing !== null && processing !== 'done')) {
          throw new AppError(
            'call.in_progress',
            isTerminal(call.status)
              ? 'This call has ended but is still being processed (duration, cost, events); delete it in a minute.'
              : `This call is still going on (status ${call.status}); delete it once it has ended.`,
          );
        }
        await insertTombstone(tx, { callId, customerId, providerCallId, now });
        await repo.deleteCallRow(tx, callId);
        await deps.reports.removed(tx, { customerId, callIds: [callId], by: 'request' }, now);
      });
    },

    /**
     * One batch of the customer's finished calls that started before `before`, deleted with what cascades from them
     * and what the listeners drop, in one short transaction; returns how many.
     */
    async deleteExpiredBatch(customerId: string, before: Date, limit = RETENTION_BATCH): Promise<number> {
      const now = clock.now();
      return db.transaction().execute(async (tx) => {
        const callIds = await repo.deleteExpiredCalls(tx, { customerId, before, limit });
        if (callIds.length > 0) await deps.reports.removed(tx, { customerId, callIds, by: 'retention' }, now);
        return callIds.length;
      });
    },

    /** Forgets tombstones older than TOMBSTONE_DAYS; returns how many. */
    purgeTombstones: (now: Date): Promise<number> =>
      purgeTombstones(db, new Date(now.getTime() - TOMBSTONE_DAYS * 86_400_000)),
  };
}

export type CallRemoval = ReturnType<typeof createCallRemoval>;
