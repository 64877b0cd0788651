import type { CallReports } from '../calls/index.ts';
import { recordCallback } from './callbacks.ts';
import { deleteForResources, markResourcesDeleted } from './idempotency.repository.ts';
import { settleReservation } from './spend.repository.ts';

/**
 * Outbound calls listen to calls: a callback notification per step, and the spend settled at the end. A deleted
 * call's callback notifications go with it (their foreign key cascades) and its spend stays in the ledger (billing,
 * not call content); its Idempotency-Key record names it without a foreign key: dropped at the end of retention,
 * made to refuse a retry when the customer deleted the call (so the call is never placed again).
 */
export const outboundCallReports: CallReports = {
  progressed: (tx, call, step, now) => recordCallback(tx, call, step, now),
  async finished(tx, call, { costUsd }, now) {
    await settleReservation(tx, call.id, costUsd, now);
    await recordCallback(tx, call, 'call.ended', now);
  },
  async removed(tx, { customerId, callIds, by }, now) {
    if (by === 'request') await markResourcesDeleted(tx, customerId, callIds, now);
    else await deleteForResources(tx, customerId, callIds);
  },
};
