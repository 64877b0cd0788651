import { sql } from 'kysely';
import type { CallRow, Database } from '../db/index.ts';

/**
 * The customer's call, locked, with where its post-processing stands (null: none was ever tracked, as for demo
 * history); undefined when it is not the customer's.
 */
export async function lockCustomerCall(
  tx: Database,
  customerId: string,
  callId: string,
): Promise<{ call: CallRow; processing: string | null; providerCallId: string | null } | undefined> {
  const call = await tx
    .selectFrom('calls')
    .selectAll()
    .where('id', '=', callId)
    .where('customer_id', '=', customerId)
    .forUpdate()
    .executeTakeFirst();
  if (!call) return undefined;
  const tracking = await tx
    .selectFrom('call_lifecycle')
    .select(['processing_state', 'provider_call_id'])
    .where('call_id', '=', callId)
    .forUpdate()
    .executeTakeFirst();
  return {
    call,
    processing: tracking?.processing_state ?? null,
    providerCallId: tracking?.provider_call_id ?? null,
  };
}

/**
 * Deletes one call. Its lifecycle row, insights, transcript, events (with their webhook deliveries and attempts),
 * transcript job and callback notifications go with it: their foreign keys cascade.
 */
export async function deleteCallRow(tx: Database, callId: string): Promise<void> {
  await tx.deleteFrom('calls').where('id', '=', callId).execute();
}

/**
 * Deletes up to `limit` of the customer's calls that started before `before` and are finished (post-processed, or
 * never tracked), oldest first, with what cascades from them; returns their ids. Calls another transaction holds
 * (a provider event being applied) are skipped for the next batch rather than waited for, so a batch never queues
 * behind a lock and several workers may run at once. One range scan of `calls_customer_started_idx`.
 */
export async function deleteExpiredCalls(
  tx: Database,
  o: { customerId: string; before: Date; limit: number },
): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    delete from calls where id in (
      select c.id from calls c
      where c.customer_id = ${o.customerId} and c.started_at < ${o.before}
        and not exists (
          select 1 from call_lifecycle l where l.call_id = c.id and l.processing_state <> 'done'
        )
      order by c.started_at, c.id
      limit ${o.limit}
      for update of c skip locked
    )
    returning id`.execute(tx);
  return rows.map((r) => r.id);
}
