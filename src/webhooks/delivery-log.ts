import { sql } from 'kysely';
import type { Database } from '../db/index.ts';

/** Read functions over the delivery log (webhook_attempts with their delivery and event); every one is scoped by customer. */

/** An attempt that did not get a 2xx answer (no answer at all, or any other status). */
const attemptFailed = sql<boolean>`(a.status_code is null or a.status_code not between 200 and 299)`;

/** One endpoint's attempts (of the customer's deliveries) with their delivery and event. */
const endpointAttempts = (db: Database, customerId: string, subscriptionId: string) =>
  db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .where('a.subscription_id', '=', subscriptionId)
    .where('d.customer_id', '=', customerId);

const ATTEMPT_COLUMNS = [
  'a.id',
  'a.attempted_at',
  'a.status_code',
  'a.latency_ms',
  'a.error',
  'd.id as delivery_id',
  'd.status as delivery_status',
  'e.id as event_id',
  'e.type as event_type',
] as const;

/** Where a page of the delivery log starts: after a keyset position (a cursor), or after skipping rows (`page`). */
export type LogPageStart = { after: { atIso: string; id: string } } | { offset: number };

/**
 * One page of an endpoint's delivery log, newest attempt first (`attempted_at desc, id desc`, on
 * webhook_attempts_subscription_time_idx); `failedOnly` keeps the attempts that failed. Callers ask for one
 * row more than they show, to learn whether another page follows.
 */
export async function deliveryLog(
  db: Database,
  customerId: string,
  subscriptionId: string,
  o: { failedOnly: boolean; start: LogPageStart; limit: number },
) {
  let q = endpointAttempts(db, customerId, subscriptionId).select([
    ...ATTEMPT_COLUMNS,
    // Dashboard test events carry `"test": true` in their data (webhooks/test-event.ts).
    sql<boolean>`coalesce(e.data->>'test' = 'true', false)`.as('is_test'),
    sql<string>`(extract(epoch from a.attempted_at) * 1000000)::bigint::text`.as('position_micros'),
  ]);
  if (o.failedOnly) q = q.where(attemptFailed);
  if ('after' in o.start) {
    q = q.where(
      sql<boolean>`(a.attempted_at, a.id) < (${o.start.after.atIso}::timestamptz, ${o.start.after.id}::bigint)`,
    );
  }
  q = q.orderBy('a.attempted_at', 'desc').orderBy('a.id', 'desc').limit(o.limit);
  return ('offset' in o.start && o.start.offset > 0 ? q.offset(o.start.offset) : q).execute();
}

export type DeliveryLogRow = Awaited<ReturnType<typeof deliveryLog>>[number];

/** One attempt of one endpoint, with what was sent (the event) and the first bytes of the answer. */
export async function deliveryAttempt(db: Database, customerId: string, subscriptionId: string, id: number) {
  return endpointAttempts(db, customerId, subscriptionId)
    .innerJoin('webhook_subscriptions as s', 's.id', 'a.subscription_id')
    .select([
      ...ATTEMPT_COLUMNS,
      'a.response_excerpt',
      'd.attempts as delivery_attempts',
      'e.occurred_at as event_occurred_at',
      'e.sequence as event_sequence',
      'e.data as event_data',
      'e.livemode as event_livemode',
      's.id as subscription_id',
      's.previous_secret_encrypted',
      's.previous_secret_expires_at',
    ])
    .where('a.id', '=', id)
    .executeTakeFirst();
}

/**
 * An endpoint's attempts per time bucket since `since` (`hour` or `day`, UTC): how many, how many got a 2xx,
 * and the median and 95th-percentile latency.
 */
export async function deliveryStats(
  db: Database,
  customerId: string,
  subscriptionId: string,
  since: Date,
  bucket: 'hour' | 'day',
) {
  const rows = await db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .select([
      sql<string>`to_char(date_trunc(${bucket}, a.attempted_at at time zone 'UTC'), 'YYYY-MM-DD"T"HH24:00')`.as(
        'bucket',
      ),
      sql<string>`count(*)::text`.as('attempts'),
      sql<string>`count(*) filter (where not ${attemptFailed})::text`.as('ok'),
      sql<string>`round(percentile_cont(0.5) within group (order by a.latency_ms))::text`.as('p50'),
      sql<string>`round(percentile_cont(0.95) within group (order by a.latency_ms))::text`.as('p95'),
    ])
    .where('a.subscription_id', '=', subscriptionId)
    .where('d.customer_id', '=', customerId)
    .where('a.attempted_at', '>=', since)
    .groupBy(sql`1`)
    .execute();
  return rows.map((r) => ({
    bucket: r.bucket,
    attempts: Number(r.attempts),
    ok: Number(r.ok),
    p50: Number(r.p50),
    p95: Number(r.p95),
  }));
}
