import type { Database } from '../db/index.ts';

/** Leaves the deleted call's tombstone: its ids, so nothing that names it later makes it again. */
export async function insertTombstone(
  tx: Database,
  row: { callId: string; customerId: string; providerCallId: string | null; now: Date },
): Promise<void> {
  await tx
    .insertInto('deleted_calls')
    .values({
      call_id: row.callId,
      customer_id: row.customerId,
      provider_call_id: row.providerCallId,
      deleted_at: row.now,
    })
    .onConflict((oc) => oc.column('call_id').doNothing())
    .execute();
}

/** Whether a call of ours with this id, or this provider handle, was deleted. */
export async function wasDeleted(
  db: Database,
  ids: { callId?: string | null | undefined; providerCallId?: string | null | undefined },
): Promise<boolean> {
  const { callId, providerCallId } = ids;
  if (!callId && !providerCallId) return false;
  const row = await db
    .selectFrom('deleted_calls')
    .select('call_id')
    .where((eb) =>
      eb.or([
        ...(callId ? [eb('call_id', '=', callId)] : []),
        ...(providerCallId ? [eb('provider_call_id', '=', providerCallId)] : []),
      ]),
    )
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Forgets the tombstones older than `cutoff`, past every redelivery a provider makes; returns how many. */
export async function purgeTombstones(db: Database, cutoff: Date): Promise<number> {
  const r = await db.deleteFrom('deleted_calls').where('deleted_at', '<', cutoff).executeTakeFirst();
  return Number(r.numDeletedRows);
}
