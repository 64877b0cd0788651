import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `create table webhook_subscriptions (
      id text primary key,
      customer_id uuid not null references customers (id) on delete cascade,
      url text not null,
      events text[] not null,
      events_key text not null,
      description text not null default '',
      secret_encrypted text not null,
      previous_secret_encrypted text,
      previous_secret_expires_at timestamptz,
      is_active boolean not null default true,
      consecutive_failures integer not null default 0,
      disabled_at timestamptz,
      disabled_reason text,
      created_at timestamptz not null,
      deleted_at timestamptz
    )`,
    // Idempotent subscribe: one live subscription per (customer, url, set of events).
    `create unique index webhook_subscriptions_identity_idx
       on webhook_subscriptions (customer_id, url, events_key) where deleted_at is null`,
    `create index webhook_subscriptions_customer_idx on webhook_subscriptions (customer_id, created_at desc, id desc)`,
    // The outbox: one row per (event, subscription), written in the event's transaction.
    `create table webhook_deliveries (
      id uuid primary key,
      event_id uuid not null references events (id) on delete cascade,
      subscription_id text not null references webhook_subscriptions (id) on delete cascade,
      customer_id uuid not null,
      status text not null check (status in ('pending', 'delivered', 'failed')),
      attempts integer not null default 0,
      next_attempt_at timestamptz not null,
      leased_until timestamptz,
      last_status_code integer,
      last_error text,
      delivered_at timestamptz,
      created_at timestamptz not null
    )`,
    `create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where status = 'pending'`,
    `create index webhook_deliveries_subscription_idx on webhook_deliveries (subscription_id, created_at desc)`,
    `create index webhook_deliveries_event_idx on webhook_deliveries (event_id)`,
    `create table webhook_attempts (
      id bigint generated always as identity primary key,
      delivery_id uuid not null references webhook_deliveries (id) on delete cascade,
      subscription_id text not null,
      attempted_at timestamptz not null,
      status_code integer,
      latency_ms integer not null,
      error text
    )`,
    `create index webhook_attempts_delivery_idx on webhook_attempts (delivery_id, attempted_at)`,
    `create index webhook_attempts_time_idx on webhook_attempts (attempted_at)`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [`drop table webhook_attempts, webhook_deliveries, webhook_subscriptions`]);
}
