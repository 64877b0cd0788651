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

/** The insights of several calls of one customer at once (an export's batch), by call, in production order. */
export async function insightsOfCalls(db: Database, customerId: string, callIds: readonly string[]) {
  const byCall = new Map<string, { name: string; result: unknown }[]>();
  if (callIds.length === 0) return byCall;
  const rows = await db
    .selectFrom('call_insights')
    .select(['call_id', 'name', 'result'])
    .where('customer_id', '=', customerId)
    .where('call_id', 'in', callIds)
    .orderBy('call_id')
    .orderBy('position')
    .execute();
  for (const r of rows)
    byCall.set(r.call_id, [...(byCall.get(r.call_id) ?? []), { name: r.name, result: r.result }]);
  return byCall;
}
