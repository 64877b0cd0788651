import { sql } from 'kysely';
import type { Database } from '../db/database.ts';

/**
 * Locks the key's row (not its customer's): reservations against one key's cap are taken one at a time. With the
 * key's cap, its customer's largest (null: the default), read in the same statement.
 */
export async function lockKey(
  tx: Database,
  keyId: string,
): Promise<{ daily_spend_cap_usd: string; outbound_max_daily_cap_usd: string | null } | undefined> {
  return tx
    .selectFrom('api_keys as k')
    .innerJoin('customers as c', 'c.id', 'k.customer_id')
    .select(['k.daily_spend_cap_usd', 'c.outbound_max_daily_cap_usd'])
    .where('k.id', '=', keyId)
    .forUpdate('k')
    .executeTakeFirst();
}

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
