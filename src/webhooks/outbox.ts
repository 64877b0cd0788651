import { type RawBuilder, sql } from 'kysely';
import type { EventType } from '../db/index.ts';
import { notifying } from '../db/index.ts';

/** About two hours of retries after call.completed (spec 6.4). */
export const TRANSCRIPT_READY_WINDOW_MS = 2 * 3600 * 1000;

/** The customer's active subscriptions to `type`, as a condition over `webhook_subscriptions s`. */
export const activeSubscriptionsTo = (customerId: string, type: EventType) => sql`
  s.customer_id = ${customerId} and s.deleted_at is null and s.is_active and ${type} = any (s.events)`;

/**
 * The outbox rows of the events a statement inserts, as common table expressions to follow its `ev` (the
 * inserted events' rows), so they are written by the same statement in the event's own transaction:
 *
 * - `queued`: one pending delivery per active subscription to the event's type (disabled or deleted
 *   subscriptions get nothing);
 * - `jobs`: for an answered call's `call.completed`, a transcript job, only while a `call.transcript.ready`
 *   subscription is active (no subscription, no transcript processing);
 * - `notified`: the delivery workers are woken (`webhook_deliveries_due`) at commit when a delivery was queued;
 *   the statement must read it (it is not a change, so it runs only when read).
 *
 * The workers of webhooks/ and transcripts/ read the rows back.
 */
export const outboxOfInsertedEvents = (): RawBuilder<unknown> => sql`
  queued as (
    insert into webhook_deliveries (id, event_id, subscription_id, customer_id, status, attempts, next_attempt_at, created_at)
    select uuid_time_ordered(), ev.id, s.id, s.customer_id, 'pending', 0, ev.occurred_at, ev.occurred_at
    from ev
    join webhook_subscriptions s
      on s.customer_id = ev.customer_id and s.deleted_at is null and s.is_active and ev.type = any (s.events)
    returning 1
  ),
  jobs as (
    insert into transcript_jobs (call_id, customer_id, status, attempts, next_attempt_at, deadline_at, created_at)
    select ev.call_id, ev.customer_id, 'pending', 0, ev.occurred_at,
           ev.occurred_at + ${TRANSCRIPT_READY_WINDOW_MS} * interval '1 millisecond', ev.occurred_at
    from ev
    where ev.type = 'call.completed' and ev.call_id is not null
      and jsonb_typeof(ev.data -> 'conversation_id') = 'string'
      and exists (
        select 1 from webhook_subscriptions s
        where s.customer_id = ev.customer_id and s.deleted_at is null and s.is_active
          and 'call.transcript.ready' = any (s.events))
    on conflict (call_id) do nothing
    returning 1
  ),
  notified as (
    select ${notifying('webhook_deliveries_due')} from (select 1 from queued limit 1) q
  )`;
