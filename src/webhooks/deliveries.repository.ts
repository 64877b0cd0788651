import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { claimable, leaseRows } from '../db/lease-claim.ts';
import type { EventType } from '../db/tables/events.table.ts';
import type { DeliveryRow, SubscriptionRow } from '../db/tables/webhooks.table.ts';
import type { ClaimRoom } from './claim-room.ts';

export const AUTO_DISABLE_AFTER = 10;

/** A claimed delivery with what sending it needs: its event and its subscription's address and secrets. */
export type ClaimedDelivery = Pick<
  DeliveryRow,
  'id' | 'event_id' | 'subscription_id' | 'attempts' | 'next_attempt_at'
> & {
  event_type: EventType;
  event_occurred_at: Date;
  event_sequence: number;
  event_data: unknown;
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
 * a burst to one slow receiver must not take every slot and hold up everyone else's. Subscriptions without
 * room are left out; among the oldest due deliveries of the others, each subscription's first ones are
 * taken, oldest first.
 *
 * The plan must walk the due index from its oldest entry whatever the statistics say: a claim runs every
 * few milliseconds under load, and statistics lag the queue (a new table; a backlog that grew faster than
 * autovacuum re-analyzes). With an estimate of a few due rows, the planner would read all of them through a
 * bitmap and sort them, on every claim, hence no bitmap scans here; it would also start a join from the few
 * subscriptions and read every delivery ever made to each, hence their activity is asked per row; and it
 * could look the chosen rows up again through the due index, hence they are locked where they are found.
 */
export async function claimDue(
  db: Database,
  now: Date,
  room: ClaimRoom,
  leaseMs: number,
): Promise<ClaimedDelivery[]> {
  const named = [...room.rooms];
  const full = named.filter(([, n]) => n <= 0).map(([id]) => id);
  const open = named.filter(([, n]) => n > 0).map(([id]) => id);
  return db.transaction().execute(async (tx) => {
    await sql`set local enable_bitmapscan = off`.execute(tx);
    const queue = { table: 'webhook_deliveries', key: 'id', state: 'status' } as const;
    return leaseRows<ClaimedDelivery>(tx, queue, {
      now,
      leaseMs,
      picked: sql`
        with head as (
          select id, subscription_id, next_attempt_at
          from webhook_deliveries
          where ${claimable(queue, now)}
            and subscription_id <> all (${full}::text[])
            and (${room.others}::int > 0 or subscription_id = any (${open}::text[]))
            and (select s.is_active and s.deleted_at is null
                 from webhook_subscriptions s where s.id = subscription_id)
          order by next_attempt_at
          limit ${room.limit * 4}
          for update skip locked
        )
        select id
        from (
          select id, next_attempt_at,
            row_number() over (partition by subscription_id order by next_attempt_at, id)
              <= coalesce((${JSON.stringify(Object.fromEntries(named))}::jsonb ->> subscription_id)::int, ${room.others})
              as has_room
          from head
        ) h
        where has_room
        order by next_attempt_at
        limit ${room.limit}`,
      join: {
        from: sql`events e, webhook_subscriptions s`,
        on: sql`e.id = q.event_id and s.id = q.subscription_id`,
      },
      returning: sql`q.id, q.event_id, q.subscription_id, q.attempts, q.next_attempt_at,
        e.type as event_type, e.occurred_at as event_occurred_at, e.sequence as event_sequence,
        e.data as event_data, s.url, s.secret_encrypted, s.previous_secret_encrypted,
        s.previous_secret_expires_at`,
    });
  });
}
