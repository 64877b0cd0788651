import type { CallReports } from '../calls/index.ts';
import { recordCallback } from './callbacks.ts';
import { settleReservation } from './spend.repository.ts';

/** Outbound calls listen to calls: a callback notification per step, and the spend settled at the end. */
export const outboundCallReports: CallReports = {
  progressed: (tx, call, step, now) => recordCallback(tx, call, step, now),
  async finished(tx, call, { costUsd }, now) {
    await settleReservation(tx, call.id, costUsd, now);
    await recordCallback(tx, call, 'call.ended', now);
  },
};
