import { utcDay } from '../clock.ts';
import type { Database } from '../db/index.ts';
import { insertReservation, settleReservation } from './spend.repository.ts';

/**
 * The spend of a call placed with a key and finished in the past (demo history): reserved at its start, settled at
 * its end.
 */
export async function recordSettledSpend(
  tx: Database,
  call: {
    callId: string;
    keyId: string;
    customerId: string;
    startedAt: Date;
    endedAt: Date;
    costUsd: string;
  },
): Promise<void> {
  await insertReservation(tx, {
    call_id: call.callId,
    api_key_id: call.keyId,
    customer_id: call.customerId,
    day: utcDay(call.startedAt),
    amount_usd: call.costUsd,
    now: call.startedAt,
  });
  await settleReservation(tx, call.callId, call.costUsd, call.endedAt);
}
