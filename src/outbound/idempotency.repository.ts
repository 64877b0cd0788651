import type { Database, IdempotencyRow } from '../db/index.ts';

type Keyed = { customerId: string; key: string };

/** Inserts the in-flight record unless the key exists; true when this request now owns the key. */
export async function insertIfAbsent(
  tx: Database,
  row: Keyed & { hash: string; resourceId: string; now: Date },
): Promise<boolean> {
  const inserted = await tx
    .insertInto('idempotency_keys')
    .values({
      customer_id: row.customerId,
      key: row.key,
      request_hash: row.hash,
      state: 'in_flight',
      resource_id: row.resourceId,
      response_status: null,
      response_body: null,
      created_at: row.now,
      updated_at: row.now,
    })
    .onConflict((oc) => oc.columns(['customer_id', 'key']).doNothing())
    .returning('resource_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function find(tx: Database, k: Keyed): Promise<IdempotencyRow | undefined> {
  return tx
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('customer_id', '=', k.customerId)
    .where('key', '=', k.key)
    .executeTakeFirst();
}

/** Takes over a failed or abandoned record: compare-and-set on the state and time it was read with. */
export async function resume(tx: Database, k: Keyed, seen: IdempotencyRow, now: Date): Promise<boolean> {
  const r = await tx
    .updateTable('idempotency_keys')
    .set({ state: 'in_flight', updated_at: now })
    .where('customer_id', '=', k.customerId)
    .where('key', '=', k.key)
    .where('state', '=', seen.state)
    .where('updated_at', '=', seen.updated_at)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

export async function complete(
  tx: Database,
  k: Keyed,
  status: number,
  body: unknown,
  now: Date,
): Promise<void> {
  await tx
    .updateTable('idempotency_keys')
    .set({
      state: 'completed',
      response_status: status,
      response_body: JSON.stringify(body),
      updated_at: now,
    })
    .where('customer_id', '=', k.customerId)
    .where('key', '=', k.key)
    .execute();
}

export async function markFailed(tx: Database, k: Keyed, now: Date): Promise<void> {
  await tx
    .updateTable('idempotency_keys')
    .set({ state: 'failed', updated_at: now })
    .where('customer_id', '=', k.customerId)
    .where('key', '=', k.key)
    .execute();
}

/** Opportunistic clean-up of one customer's records older than the retention. */
export async function purgeBefore(tx: Database, customerId: string, cutoff: Date): Promise<void> {
  await tx
    .deleteFrom('idempotency_keys')
    .where('customer_id', '=', customerId)
    .where('created_at', '<', cutoff)
    .execute();
}

/**
 * The calls these records made were deleted by their customer: the stored answer (it names the number called) is
 * dropped, and the key refuses a retry instead of making the call again, until the record expires.
 */
export async function markResourcesDeleted(
  tx: Database,
  customerId: string,
  resourceIds: readonly string[],
  now: Date,
): Promise<void> {
  if (resourceIds.length === 0) return;
  await tx
    .updateTable('idempotency_keys')
    .set({ state: 'resource_deleted', response_status: null, response_body: null, updated_at: now })
    .where('customer_id', '=', customerId)
    .where('resource_id', 'in', resourceIds)
    .execute();
}

/** Deletes the records that made these calls (the calls reached the end of their retention). */
export async function deleteForResources(
  tx: Database,
  customerId: string,
  resourceIds: readonly string[],
): Promise<void> {
  if (resourceIds.length === 0) return;
  await tx
    .deleteFrom('idempotency_keys')
    .where('customer_id', '=', customerId)
    .where('resource_id', 'in', resourceIds)
    .execute();
}

/** Every customer's records older than `cutoff`, which no retry may use any more; returns how many. */
export async function purgeAllBefore(db: Database, cutoff: Date): Promise<number> {
  const r = await db.deleteFrom('idempotency_keys').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(r.numDeletedRows);
}
