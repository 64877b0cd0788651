import { sql } from 'kysely';
import type { Database } from '../db/index.ts';

/** Reserved plus settled amounts of one key on one UTC day, as a decimal string (the trigger's running total). */
export async function spentOnDay(db: Database, keyId: string, day: string): Promise<string> {
  const row = await db
    .selectFrom('spend_days')
    .select(sql<string>`amount_usd::text`.as('total'))
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
    .values({ ...rest, message_id: null, state: 'reserved', created_at: now, settled_at: null })
    .onConflict((oc) => oc.column('call_id').doNothing())
    .execute();
}

/** A text message's estimate in the key's ledger, beside its calls': the same daily cap holds both. */
export async function insertMessageReservation(
  tx: Database,
  row: {
    message_id: string;
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
    .values({ ...rest, call_id: null, state: 'reserved', created_at: now, settled_at: null })
    .onConflict((oc) => oc.column('message_id').doNothing())
    .execute();
}

/** Replaces a message's estimate by what it cost once its final status is known. */
export async function settleMessageReservation(
  tx: Database,
  messageId: string,
  amountUsd: string,
  now: Date,
): Promise<void> {
  await tx
    .updateTable('spend_reservations')
    .set({ amount_usd: amountUsd, state: 'settled', settled_at: now })
    .where('message_id', '=', messageId)
    .execute();
}

/** A message the provider refused costs nothing and leaves the ledger with it. */
export async function removeMessageReservation(tx: Database, messageId: string): Promise<void> {
  await tx.deleteFrom('spend_reservations').where('message_id', '=', messageId).execute();
}

/** A call the provider never took costs nothing and leaves the ledger with it (the ledger outlives calls). */
export async function removeReservation(tx: Database, callId: string): Promise<void> {
  await tx.deleteFrom('spend_reservations').where('call_id', '=', callId).execute();
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
