import { sql } from 'kysely';
import type { Database, EventType } from '../db/index.ts';
import { notify } from '../db/index.ts';

export type EventListFilter = {
  customerId: string;
  type?: EventType | undefined;
  callId?: string | undefined;
};
export type EventPageStart = { after: { atIso: string; id: string } } | { offset: number };

const occurredMicros = sql<string>`(extract(epoch from e.occurred_at) * 1000000)::bigint::text`;

/** Newest first on events_customer_time_idx; callers ask for limit + 1 to learn whether more follow. */
export async function listEventRows(db: Database, f: EventListFilter, start: EventPageStart, limit: number) {
  let q = db
    .selectFrom('events as e')
    .select([
      'e.id',
      'e.type',
      'e.call_id',
      'e.message_id',
      'e.sequence',
      'e.data',
      'e.occurred_at',
      'e.livemode',
      occurredMicros.as('position_micros'),
    ])
    .where('e.customer_id', '=', f.customerId);
  if (f.type) q = q.where('e.type', '=', f.type);
  if (f.callId) q = q.where('e.call_id', '=', f.callId);
  if ('after' in start) {
    q = q.where(
      sql<boolean>`(e.occurred_at, e.id) < (${start.after.atIso}::timestamptz, ${start.after.id}::uuid)`,
    );
  }
  q = q.orderBy('e.occurred_at', 'desc').orderBy('e.id', 'desc').limit(limit);
  return ('offset' in start && start.offset > 0 ? q.offset(start.offset) : q).execute();
}

export async function deliveriesOf(db: Database, eventIds: string[]) {
  if (eventIds.length === 0) return { deliveries: [], attempts: [] };
  const deliveries = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('event_id', 'in', eventIds)
    .orderBy('created_at')
    .execute();
  const ids = deliveries.map((d) => d.id);
  const attempts = ids.length
    ? await db
        .selectFrom('webhook_attempts')
        .selectAll()
        .where('delivery_id', 'in', ids)
        .orderBy('attempted_at')
        .execute()
    : [];
  return { deliveries, attempts };
}

/**
 * New pending deliveries of the given events to one subscription (redelivery); returns how many. An event
 * that is still waiting to go to that subscription is left alone: it is not queued a second time, and it
 * does not use up `max`. The unique index on pending (event, subscription) settles two redeliveries racing.
 */
export async function scheduleRedelivery(
  db: Database,
  q: { customerId: string; subscriptionId: string; now: Date; eventId?: string; since?: Date; max: number },
): Promise<number> {
  const result = await sql`
    insert into webhook_deliveries (id, event_id, subscription_id, customer_id, status, attempts, next_attempt_at, created_at)
    select uuid_time_ordered(), e.id, s.id, s.customer_id, 'pending', 0, ${q.now}, ${q.now}
    from webhook_subscriptions s
    join events e on e.customer_id = s.customer_id and e.type = any (s.events)
    where s.id = ${q.subscriptionId} and s.customer_id = ${q.customerId} and s.deleted_at is null
      ${q.eventId ? sql`and e.id = ${q.eventId}` : sql``}
      ${q.since ? sql`and e.occurred_at >= ${q.since} and (e.call_id is not null or e.message_id is not null)` : sql``}
      and not exists (
        select 1 from webhook_deliveries d
        where d.event_id = e.id and d.subscription_id = s.id and d.status = 'pending')
    order by e.occurred_at
    limit ${q.max}
    on conflict (event_id, subscription_id) where status = 'pending' do nothing`.execute(db);
  const scheduled = Number(result.numAffectedRows ?? 0);
  if (scheduled > 0) await notify(db, 'webhook_deliveries_due');
  return scheduled;
}

export async function subscriptionsForEvent(
  db: Database,
  customerId: string,
  eventId: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom('webhook_subscriptions as s')
    .innerJoin('events as e', (j) => j.onRef('e.customer_id', '=', 's.customer_id'))
    .select('s.id')
    .where('e.id', '=', eventId)
    .where('s.customer_id', '=', customerId)
    .where('s.deleted_at', 'is', null)
    .where(sql<boolean>`e.type = any (s.events)`)
    .execute();
  return rows.map((r) => r.id);
}

export async function eventExists(db: Database, customerId: string, eventId: string): Promise<boolean> {
  return Boolean(
    await db
      .selectFrom('events')
      .select('id')
      .where('id', '=', eventId)
      .where('customer_id', '=', customerId)
      .executeTakeFirst(),
  );
}
