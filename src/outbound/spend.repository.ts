import { sql } from 'kysely';
import type { Database } from '../db/index.ts';

/** Reserved plus settled amounts of one key on one UTC day, as a decimal string. */
export async function spentOnDay(db: Database, keyId: string, day: string): Promise<string> {
  const row = await db
    .selectFrom('spend_reservations')
    .select(sql<string>`coalesce(sum(amount_usd), 0)::text`.as('total'))
    .where('api_key_id', '=', keyId)
    .where('day', '=', day)
    .executeTakeFirst();
  return row?.total ?? '0';
}

export async function insertReservation(
  tx: Database,
  row: {
    call_id: string;
    api_key_id: string;
    customer_id: string;
    day: string;
    amount_usd: string;
    now: Date;
  },
): Promise<void> {
  const { now, ...rest } = row;
  await tx
    .insertInto('spend_reservations')
    .values({ ...rest, state: 'reserved', created_at: now, settled_at: null })
    .onConflict((oc) => oc.column('call_id').doNothing())
    .execute();
}

/** Replaces the estimate by the actual cost once the call is post-processed. */
export async function settleReservation(
  tx: Database,
  callId: string,
  amountUsd: string,
  now: Date,
): Promise<void> {
  await tx
    .updateTable('spend_reservations')
    .set({ amount_usd: amountUsd, state: 'settled', settled_at: now })
    .where('call_id', '=', callId)
    .execute();
}

export async function findReservation(db: Database, callId: string) {
  return db
    .selectFrom('spend_reservations')
    .select(['amount_usd', 'state'])
    .where('call_id', '=', callId)
    .executeTakeFirst();
}
