import type { Updateable } from 'kysely';
import type { CallLifecycleRow, CallLifecycleTable, CallRow, CallsTable, Database } from '../db/index.ts';

/** Every change of a call moves its `updated_at` (GET /calls?updated_since=), so the type asks for it. */
type CallChanges = Omit<Updateable<CallsTable>, 'id' | 'customer_id' | 'event_seq' | 'updated_at'> & {
  updated_at: Date;
};
type LifecycleChanges = Omit<Updateable<CallLifecycleTable>, 'call_id' | 'customer_id' | 'created_at'>;

/** Locks the call row: every change to a call (and its events) is serialised on it. */
export async function lockCall(tx: Database, callId: string): Promise<CallRow | undefined> {
  return tx.selectFrom('calls').selectAll().where('id', '=', callId).forUpdate().executeTakeFirst();
}

export async function findCall(db: Database, callId: string): Promise<CallRow | undefined> {
  return db.selectFrom('calls').selectAll().where('id', '=', callId).executeTakeFirst();
}

export async function updateCall(tx: Database, callId: string, changes: CallChanges): Promise<CallRow> {
  return tx
    .updateTable('calls')
    .set(changes)
    .where('id', '=', callId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function callIdForProviderCall(tx: Database, providerCallId: string): Promise<string | null> {
  const row = await tx
    .selectFrom('call_lifecycle')
    .select('call_id')
    .where('provider_call_id', '=', providerCallId)
    .executeTakeFirst();
  return row?.call_id ?? null;
}

export async function insertLifecycle(
  tx: Database,
  row: { call_id: string; customer_id: string; provider_call_id: string | null; now: Date },
): Promise<void> {
  const { now, ...rest } = row;
  await tx
    .insertInto('call_lifecycle')
    .values({ ...rest, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('call_id').doNothing())
    .execute();
}

export async function lockLifecycle(tx: Database, callId: string): Promise<CallLifecycleRow | undefined> {
  return tx
    .selectFrom('call_lifecycle')
    .selectAll()
    .where('call_id', '=', callId)
    .forUpdate()
    .executeTakeFirst();
}

export async function updateLifecycle(
  tx: Database,
  callId: string,
  changes: LifecycleChanges,
): Promise<void> {
  await tx.updateTable('call_lifecycle').set(changes).where('call_id', '=', callId).execute();
}

/** Calls whose post-processing is due, oldest first. */
export async function dueForProcessing(db: Database, now: Date, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('call_lifecycle')
    .select('call_id')
    .where('processing_state', '=', 'pending')
    .where('processing_due_at', '<=', now)
    .orderBy('processing_due_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.call_id);
}

export async function insertInsights(
  tx: Database,
  call: { id: string; customer_id: string },
  insights: { name: string; result: unknown }[],
  now: Date,
): Promise<void> {
  if (insights.length === 0) return;
  await tx
    .insertInto('call_insights')
    .values(
      insights.map((insight, position) => ({
        call_id: call.id,
        customer_id: call.customer_id,
        name: insight.name,
        result: JSON.stringify(insight.result),
        position,
        created_at: now,
      })),
    )
    .onConflict((oc) => oc.columns(['call_id', 'name']).doNothing())
    .execute();
}

/** Tracked calls that have not ended (post-processing not started), oldest first, in keyset pages. */
export async function openCalls(
  db: Database,
  o: { after: { createdAt: Date; callId: string } | null; limit: number },
) {
  let query = db
    .selectFrom('call_lifecycle as l')
    .innerJoin('calls as c', 'c.id', 'l.call_id')
    .select(['l.call_id', 'l.provider_call_id', 'l.created_at', 'c.livemode'])
    .where('l.processing_state', '=', 'none');
  const after = o.after;
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('l.created_at', '>', after.createdAt),
        eb.and([eb('l.created_at', '=', after.createdAt), eb('l.call_id', '>', after.callId)]),
      ]),
    );
  }
  return query.orderBy('l.created_at').orderBy('l.call_id').limit(o.limit).execute();
}
