import type { CallbackNotificationRow, Database } from '../db/index.ts';

/** Next per-call sequence number; the caller holds the call row's lock, so numbers never collide. */
export async function nextCallbackSequence(tx: Database, callId: string): Promise<number> {
  const row = await tx
    .selectFrom('callback_notifications')
    .select((eb) => eb.fn.max('sequence').as('last'))
    .where('call_id', '=', callId)
    .executeTakeFirst();
  return Number(row?.last ?? 0) + 1;
}

export async function insertCallback(
  tx: Database,
  row: {
    id: string;
    customer_id: string;
    call_id: string;
    sequence: number;
    event: string;
    url: string;
    body: string;
    now: Date;
  },
): Promise<void> {
  const { now, ...rest } = row;
  await tx
    .insertInto('callback_notifications')
    .values({
      ...rest,
      next_attempt_at: now,
      leased_until: null,
      last_status_code: null,
      last_error: null,
      delivered_at: null,
      created_at: now,
    })
    .execute();
}

export async function listCallbacks(db: Database, callId: string): Promise<CallbackNotificationRow[]> {
  return db
    .selectFrom('callback_notifications')
    .selectAll()
    .where('call_id', '=', callId)
    .orderBy('sequence')
    .execute();
}

export async function findCallbackSecretVersion(db: Database, customerId: string): Promise<number> {
  const row = await db
    .selectFrom('callback_secrets')
    .select('version')
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
  return row?.version ?? 1;
}

export async function bumpCallbackSecretVersion(
  db: Database,
  customerId: string,
  now: Date,
): Promise<number> {
  const row = await db
    .insertInto('callback_secrets')
    .values({ customer_id: customerId, version: 2, rotated_at: now })
    .onConflict((oc) =>
      oc.column('customer_id').doUpdateSet((eb) => ({
        version: eb('callback_secrets.version', '+', 1),
        rotated_at: now,
      })),
    )
    .returning('version')
    .executeTakeFirstOrThrow();
  return row.version;
}
