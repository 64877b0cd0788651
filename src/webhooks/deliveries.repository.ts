import { sql } from 'kysely';
import type { Database, DeliveryRow, EventType, SubscriptionRow } from '../db/index.ts';
import { claimable, leaseRows } from '../db/index.ts';
import type { ClaimRoom } from './claim-room.ts';

/** A claimed delivery with what sending it needs: its event and its subscription's address and secrets. */
export type ClaimedDelivery = Pick<
  DeliveryRow,
  'id' | 'event_id' | 'subscription_id' | 'attempts' | 'next_attempt_at'
> & {
  event_type: EventType;
  event_occurred_at: Date;
  event_sequence: number;
  event_data: unknown;
  event_livemode: boolean;
} & Pick<
    SubscriptionRow,
    'url' | 'secret_encrypted' | 'previous_secret_encrypted' | 'previous_secret_expires_at'
  >;

/**
 * Claims due deliveries of active subscriptions with a lease. `skip locked` lets any number of workers
 * claim side by side without taking the same row (each passes over what another is claiming); a crashed
 * worker's lease simply runs out.
 *
 * At most `room.limit` in all, and per subscription at most its room (`room.others` for those not named):
 * a burst to one slow receiver must not take every slot and hold up everyone else's. Each subscription with
 * room offers its oldest due deliveries, up to its room; the oldest of all those are locked and taken (twice
 * the limit are offered, so that what a claim beside this one holds can be passed over). They are looked up again
 * by key and kept in the order offered: ordered by the row's own due time, the planner could find them by walking
 * the due index instead, backlog and all.
 *
 * The subscriptions with pending deliveries are found by skipping from one to the next in
 * `webhook_deliveries_due_by_subscription_idx` (one index descent each), and each one's due deliveries are read
 * from its own stretch of that index. So a claim costs about the same whatever backlog a receiver that stopped
 * answering has piled up (walking the single due index from its oldest entry, each claim stepped over all of
 * it), and it grows with the number of subscriptions that have deliveries pending instead: about 6 µs each on
 * PostgreSQL here (docs/performance.md). The schema keeps this plan whatever ANALYZE last saw of the outbox: no
 * statistics on `status`, no due index across subscriptions (migration 20261129_0900, claim-plan.test.ts).
 */
export async function claimDue(
  db: Database,
  now: Date,
  room: ClaimRoom,
  leaseMs: number,
): Promise<ClaimedDelivery[]> {
  const queue = { table: 'webhook_deliveries', key: 'id', state: 'status' } as const;
  return leaseRows<ClaimedDelivery>(db, queue, {
    now,
    leaseMs,
    picked: sql`
      with recursive pending(subscription_id) as (
        (select subscription_id from webhook_deliveries
         where status = 'pending' order by subscription_id limit 1)
        union all
        select (select d.subscription_id from webhook_deliveries d
                where d.status = 'pending' and d.subscription_id > p.subscription_id
                order by d.subscription_id limit 1)
        from pending p where p.subscription_id is not null
      ),
      with_room as (
        select p.subscription_id,
          coalesce((${JSON.stringify(Object.fromEntries(room.rooms))}::jsonb ->> p.subscription_id)::int,
            ${room.others}::int) as room
        from pending p
        join webhook_subscriptions s
          on s.id = p.subscription_id and s.is_active and s.deleted_at is null
      ),
      offered as (
        select due.id, due.next_attempt_at as due_at
        from with_room r
        cross join lateral (
          select d.id, d.next_attempt_at
          from webhook_deliveries d
          where d.subscription_id = r.subscription_id and ${claimable(queue, now)}
          order by d.next_attempt_at
          limit greatest(r.room, 0)
        ) due
        where r.room > 0
        order by due.next_attempt_at
        limit ${room.limit * 2}
      )
      select d.id
      from offered o
      join webhook_deliveries d on d.id = o.id
      where ${claimable(queue, now)}
      order by o.due_at
      limit ${room.limit}
      for update of d skip locked`,
    join: {
      from: sql`events e, webhook_subscriptions s`,
      on: sql`e.id = q.event_id and s.id = q.subscription_id`,
    },
    returning: sql`q.id, q.event_id, q.subscription_id, q.attempts, q.next_attempt_at,
      e.type as event_type, e.occurred_at as event_occurred_at, e.sequence as event_sequence,
      e.data as event_data, e.livemode as event_livemode, s.url, s.secret_encrypted, s.previous_secret_encrypted,
      s.previous_secret_expires_at`,
  });
}
