import type { CallReports } from '../calls/index.ts';
import { callCompletedData, insightReceivedData } from './call-event-data.ts';
import { recordEvent } from './events.repository.ts';

/**
 * Webhooks listen to calls: a finished call's `call.completed`, then its `call.insight.received` when it has
 * insights, in the transaction that finished it.
 */
export const webhookCallEvents: CallReports = {
  async progressed() {},
  async finished(tx, call, { insights }, now) {
    const base = { customerId: call.customer_id, callId: call.id, occurredAt: now };
    await recordEvent(tx, { ...base, type: 'call.completed', data: callCompletedData(call) });
    if (insights.length > 0) {
      await recordEvent(tx, {
        ...base,
        type: 'call.insight.received',
        data: insightReceivedData(call, insights),
      });
    }
  },
  // A deleted call's events, their deliveries (pending ones never sent) and attempts, and its transcript job go
  // with it: their foreign keys cascade. A delivery in flight meanwhile finds its row gone and records nothing.
  async removed() {},
};
