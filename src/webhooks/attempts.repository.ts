import { sql } from 'kysely';
import type { Database, DeliveryStatus, SubscriptionRow } from '../db/index.ts';
import { asNamedStatement } from '../db/index.ts';

/** What one attempt came to: its log row, and the delivery's state after it. */
export type AttemptOutcome = {
  deliveryId: string;
  subscriptionId: string;
  startedAt: Date;
  /** When the attempt ended. */
  at: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The first bytes of the receiver's answer (delivery/http-sender.ts); null without one. */
  responseExcerpt: string | null;
  /** `pending` with a later `nextAttemptAt` to retry; `failed` when given up. */
  status: DeliveryStatus;
  nextAttemptAt: Date;
};

/**
 * A subscription's failure count after a batch, when its last counted failure ended, and when and why the batch
 * disabled it (if it did).
 */
export type SubscriptionCount = {
  id: string;
  failures: number;
  countedAt: Date | null;
  disabledAt: Date | null;
  disabledReason: string | null;
};

export type CountedSubscription = Pick<
  SubscriptionRow,
  'id' | 'consecutive_failures' | 'failure_counted_at' | 'is_active'
>;

/**
 * Locks, in id order (so concurrent batches cannot deadlock), the subscriptions whose failure count a batch
 * may change: those with a failed attempt in it, and those with a count to reset. The rest are left
 * untouched: a lock on every success would serialize a subscription's batches behind one another's commits.
 * `no key update`, as an ordinary update takes: it does not block the outbox rows that events insert.
 */
export async function lockCountedSubscriptions(
  tx: Database,
  subscriptionIds: string[],
  failing: string[],
): Promise<CountedSubscription[]> {
  const { rows } = await sql<CountedSubscription>`
    select id, consecutive_failures, failure_counted_at, is_active
    from webhook_subscriptions
    where id = any (${subscriptionIds}::text[])
      and (id = any (${failing}::text[]) or consecutive_failures > 0)
    order by id
    for no key update`.execute(tx);
  return rows;
}

/**
 * Writes a batch in one statement: each delivery's new state (its lease released), its attempt row, the
 * `counts` of subscriptions locked beforehand, and a reset of the `reset` subscriptions' counts (locked here,
 * in id order, and only those with a count to reset). A delivery that no longer exists (its customer deleted
 * meanwhile) is skipped rather than failing the batch.
 */
export async function writeOutcomes(
  db: Database,
  outcomes: AttemptOutcome[],
  counts: SubscriptionCount[],
  reset: string[],
): Promise<void> {
  const attempts = outcomes.map((o) => ({
    delivery_id: o.deliveryId,
    subscription_id: o.subscriptionId,
    at: o.at.toISOString(),
    status_code: o.statusCode,
    latency_ms: o.latencyMs,
    error: o.error,
    response_excerpt: o.responseExcerpt,
    status: o.status,
    next_attempt_at: o.nextAttemptAt.toISOString(),
    last_error: o.status === 'delivered' ? null : (o.error ?? 'failed').slice(0, 500),
  }));
  const subscriptions = counts.map((c) => ({
    id: c.id,
    failures: c.failures,
    counted_at: c.countedAt?.toISOString() ?? null,
    disabled_at: c.disabledAt?.toISOString() ?? null,
    disabled_reason: c.disabledReason,
  }));
  // JSON rather than parameter arrays: one parameter per table, and error texts need no array escaping. A named
  // statement: planning it for each batch cost PostgreSQL about 6 µs per delivery (docs/performance.md, "eighth").
  const query = sql`
    with o as (
      select * from jsonb_to_recordset(${JSON.stringify(attempts)}::jsonb) as o(
        delivery_id uuid, subscription_id text, at timestamptz, status_code int, latency_ms int, error text,
        response_excerpt text, status text, next_attempt_at timestamptz, last_error text)
    ),
    done as (
      update webhook_deliveries d
      set status = o.status,
          next_attempt_at = o.next_attempt_at,
          leased_until = null,
          last_status_code = o.status_code,
          last_error = o.last_error,
          delivered_at = case when o.status = 'delivered' then o.at else d.delivered_at end
      from o
      where d.id = o.delivery_id
      returning o.*
    ),
    counted as (
      update webhook_subscriptions s
      set consecutive_failures = c.failures,
          failure_counted_at = c.counted_at,
          is_active = s.is_active and c.disabled_at is null,
          disabled_at = coalesce(c.disabled_at, s.disabled_at),
          disabled_reason = coalesce(c.disabled_reason, s.disabled_reason)
      from jsonb_to_recordset(${JSON.stringify(subscriptions)}::jsonb)
        as c(id text, failures int, counted_at timestamptz, disabled_at timestamptz, disabled_reason text)
      where s.id = c.id
    ),
    reset as (
      update webhook_subscriptions s
      set consecutive_failures = 0, failure_counted_at = null
      from (
        select id from webhook_subscriptions
        where id = any (${reset}::text[]) and consecutive_failures > 0
        order by id
        for no key update
      ) r
      where s.id = r.id
    )
    insert into webhook_attempts
      (delivery_id, subscription_id, attempted_at, status_code, latency_ms, error, response_excerpt)
    select delivery_id, subscription_id, at, status_code, latency_ms, error, response_excerpt from done`.compile(
    db,
  );
  await db.executeQuery(asNamedStatement(query));
}
