import type { Database, SubscriptionRow, WebhookSubscriptionsTable } from '../db/index.ts';

const live = (db: Database, customerId: string) =>
  db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('customer_id', '=', customerId)
    .where('deleted_at', 'is', null);

export const findLive = (
  db: Database,
  customerId: string,
  id: string,
): Promise<SubscriptionRow | undefined> => live(db, customerId).where('id', '=', id).executeTakeFirst();

/** For the operator's tools only (the CLI): a live subscription whichever customer owns it. */
export const findAnyAsOperator = (db: Database, id: string): Promise<SubscriptionRow | undefined> =>
  db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();

export const findByIdentity = (db: Database, customerId: string, url: string, eventsKey: string) =>
  live(db, customerId).where('url', '=', url).where('events_key', '=', eventsKey).executeTakeFirst();

export async function countLive(db: Database, customerId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_subscriptions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('customer_id', '=', customerId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Inserts unless a live subscription with the same identity exists; returns undefined in that case. */
export async function insertIfNew(
  db: Database,
  row: WebhookSubscriptionsTable,
): Promise<SubscriptionRow | undefined> {
  return db
    .insertInto('webhook_subscriptions')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['customer_id', 'url', 'events_key']).where('deleted_at', 'is', null).doNothing(),
    )
    .returningAll()
    .executeTakeFirst();
}

export async function listLive(
  db: Database,
  customerId: string,
  limit: number,
  offset: number,
): Promise<SubscriptionRow[]> {
  return live(db, customerId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

const updateLive = (db: Database, id: string, changes: Partial<WebhookSubscriptionsTable>) =>
  db.updateTable('webhook_subscriptions').set(changes).where('id', '=', id).where('deleted_at', 'is', null);

/** Changes one of the customer's live subscriptions; another customer's subscription is not found. */
export async function update(
  db: Database,
  customerId: string,
  id: string,
  changes: Partial<WebhookSubscriptionsTable>,
): Promise<SubscriptionRow | undefined> {
  return updateLive(db, id, changes).where('customer_id', '=', customerId).returningAll().executeTakeFirst();
}

/** For the operator's tools only (the CLI): changes a live subscription whichever customer owns it. */
export async function updateAsOperator(
  db: Database,
  id: string,
  changes: Partial<WebhookSubscriptionsTable>,
): Promise<SubscriptionRow | undefined> {
  return updateLive(db, id, changes).returningAll().executeTakeFirst();
}
