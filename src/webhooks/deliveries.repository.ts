import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { DeliveryRow } from './webhooks.table.ts';

export const AUTO_DISABLE_AFTER = 10;

/**
 * Claims due deliveries of active subscriptions with a lease. `skip locked` lets any number of workers
 * claim side by side without taking the same row; a crashed worker's lease simply runs out.
 *
 * No subscription gets more than `perSubscription` deliveries in flight, counting those the caller already
 * has (`inFlight`): a burst to one slow receiver must not take every slot and hold up everyone else's.
 * Subscriptions at their share are left out; among the oldest due deliveries of the others, each
 * subscription's first ones are taken, oldest first.
 */
export async function claimDue(
  db: Database,
  now: Date,
  limit: number,
  leaseMs: number,
  inFlight: ReadonlyMap<string, number> = new Map(),
  perSubscription = limit,
): Promise<DeliveryRow[]> {
  const leasedUntil = new Date(now.getTime() + leaseMs);
  const busy = [...inFlight].filter(([, n]) => n > 0);
  const saturated = busy.filter(([, n]) => n >= perSubscription).map(([id]) => id);
  const { rows } = await sql<DeliveryRow>`
    update webhook_deliveries d
    set leased_until = ${leasedUntil}, attempts = d.attempts + 1
    from (
      select d3.id
      from webhook_deliveries d3
      where d3.id in (
        select c.id
        from (
          select d2.id, d2.next_attempt_at,
            row_number() over (partition by d2.subscription_id order by d2.next_attempt_at, d2.id)
              + coalesce(f.n, 0) as slot
          from (
            select d1.id, d1.subscription_id, d1.next_attempt_at
            from webhook_deliveries d1
            join webhook_subscriptions s on s.id = d1.subscription_id
            where d1.status = 'pending'
              and d1.next_attempt_at <= ${now}
              and (d1.leased_until is null or d1.leased_until <= ${now})
              and s.is_active and s.deleted_at is null
              and not (d1.subscription_id = any (${saturated}::text[]))
            order by d1.next_attempt_at
            limit ${limit * 4}
          ) d2
          left join unnest(${busy.map(([id]) => id)}::text[], ${busy.map(([, n]) => n)}::int[]) as f(sub, n)
            on f.sub = d2.subscription_id
        ) c
        where c.slot <= ${perSubscription}
        order by c.next_attempt_at
        limit ${limit}
      )
        and d3.status = 'pending'
        and (d3.leased_until is null or d3.leased_until <= ${now})
      for update skip locked
    ) claimed
    where d.id = claimed.id
    returning d.*`.execute(db);
  return rows;
}

export async function recordAttempt(
  db: Database,
  attempt: {
    deliveryId: string;
    subscriptionId: string;
    at: Date;
    statusCode: number | null;
    latencyMs: number;
    error: string | null;
  },
): Promise<void> {
  await db
    .insertInto('webhook_attempts')
    .values({
      delivery_id: attempt.deliveryId,
      subscription_id: attempt.subscriptionId,
      attempted_at: attempt.at,
      status_code: attempt.statusCode,
      latency_ms: attempt.latencyMs,
      error: attempt.error,
    })
    .execute();
}

export async function markDelivered(
  db: Database,
  delivery: DeliveryRow,
  at: Date,
  statusCode: number,
): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx
      .updateTable('webhook_deliveries')
      .set({
        status: 'delivered',
        delivered_at: at,
        leased_until: null,
        last_status_code: statusCode,
        last_error: null,
      })
      .where('id', '=', delivery.id)
      .execute();
    // Only when there is a count to reset: an unconditional update would take the subscription's row lock
    // on every success and serialize all of a subscription's deliveries behind one another's commits.
    await tx
      .updateTable('webhook_subscriptions')
      .set({ consecutive_failures: 0 })
      .where('id', '=', delivery.subscription_id)
      .where('consecutive_failures', '>', 0)
      .execute();
  });
}

/**
 * Records a failed attempt: reschedules (or gives up when `retryAt` is null) and counts the failure on the
 * subscription, disabling it at exactly AUTO_DISABLE_AFTER consecutive failures (or at once when `gone`).
 * Returns true when this failure disabled the subscription.
 */
export async function markFailed(
  db: Database,
  delivery: DeliveryRow,
  failure: { at: Date; statusCode: number | null; error: string; retryAt: Date | null; gone: boolean },
): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    await tx
      .updateTable('webhook_deliveries')
      .set({
        status: failure.retryAt && !failure.gone ? 'pending' : 'failed',
        next_attempt_at: failure.retryAt ?? delivery.next_attempt_at,
        leased_until: null,
        last_status_code: failure.statusCode,
        last_error: failure.error.slice(0, 500),
      })
      .where('id', '=', delivery.id)
      .execute();
    const { rows } = await sql<{ disabled: boolean }>`
      update webhook_subscriptions
      set consecutive_failures = consecutive_failures + 1,
          is_active = case when ${failure.gone} or consecutive_failures + 1 >= ${AUTO_DISABLE_AFTER} then false else is_active end,
          disabled_at = case when is_active and (${failure.gone} or consecutive_failures + 1 >= ${AUTO_DISABLE_AFTER}) then ${failure.at}::timestamptz else disabled_at end,
          disabled_reason = case
            when is_active and ${failure.gone} then 'receiver answered 410 Gone'
            when is_active and consecutive_failures + 1 >= ${AUTO_DISABLE_AFTER} then ${`${AUTO_DISABLE_AFTER} consecutive delivery failures`}
            else disabled_reason end
      where id = ${delivery.subscription_id}
      returning (disabled_at = ${failure.at}::timestamptz and not is_active) as disabled`.execute(tx);
    return rows[0]?.disabled ?? false;
  });
}

/** Bodies and secrets for a claimed batch, in one round trip each. */
export async function loadForSending(db: Database, deliveries: DeliveryRow[]) {
  const eventIds = [...new Set(deliveries.map((d) => d.event_id))];
  const subscriptionIds = [...new Set(deliveries.map((d) => d.subscription_id))];
  const [events, subscriptions] = await Promise.all([
    eventIds.length
      ? db
          .selectFrom('events')
          .select(['id', 'type', 'occurred_at', 'sequence', 'data'])
          .where('id', 'in', eventIds)
          .execute()
      : [],
    subscriptionIds.length
      ? db
          .selectFrom('webhook_subscriptions')
          .select([
            'id',
            'url',
            'secret_encrypted',
            'previous_secret_encrypted',
            'previous_secret_expires_at',
          ])
          .where('id', 'in', subscriptionIds)
          .execute()
      : [],
  ]);
  return {
    events: new Map(events.map((e) => [e.id, e])),
    subscriptions: new Map(subscriptions.map((s) => [s.id, s])),
  };
}
