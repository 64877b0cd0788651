import type { Database } from '../db/index.ts';

/** The AI insights of one call (spec 6.4 call.insight.received), in the order they were produced. */
export async function callInsights(db: Database, customerId: string, callId: string) {
  return db
    .selectFrom('call_insights')
    .select(['name', 'result'])
    .where('customer_id', '=', customerId)
    .where('call_id', '=', callId)
    .orderBy('position')
    .execute();
}
