import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

// Raw SQL, one statement per string: the same text runs on PGlite (PostgreSQL 18) and PostgreSQL 15.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `-- Our side of each provider call: its upstream handle and the post-processing step after it ends.
    create table call_lifecycle (
      call_id uuid primary key references calls (id) on delete cascade,
      customer_id uuid not null references customers (id) on delete cascade,
      provider_call_id text unique,
      processing_state text not null default 'none' check (processing_state in ('none', 'pending', 'done')),
      processing_attempts integer not null default 0,
      processing_due_at timestamptz,
      processing_error text,
      processed_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`,
    `create index call_lifecycle_due_idx on call_lifecycle (processing_due_at) where processing_state = 'pending'`,
    `create table call_insights (
      call_id uuid not null references calls (id) on delete cascade,
      name text not null,
      customer_id uuid not null references customers (id) on delete cascade,
      result jsonb not null,
      position integer not null,
      created_at timestamptz not null,
      primary key (call_id, name)
    )`,
    `-- Stripe-style Idempotency-Key records, per customer; rows older than the retention are ignored and purged.
    create table idempotency_keys (
      customer_id uuid not null references customers (id) on delete cascade,
      key text not null,
      request_hash text not null,
      state text not null check (state in ('in_flight', 'completed', 'failed')),
      call_id uuid not null,
      response_status integer,
      response_body text,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (customer_id, key)
    )`,
    `create index idempotency_keys_created_idx on idempotency_keys (created_at)`,
    `-- One row per API-placed call: the estimate while the call is in flight, the actual cost once settled.
    create table spend_reservations (
      call_id uuid primary key references calls (id) on delete cascade,
      api_key_id uuid not null references api_keys (id) on delete cascade,
      customer_id uuid not null references customers (id) on delete cascade,
      day date not null,
      amount_usd numeric(12, 4) not null check (amount_usd >= 0),
      state text not null check (state in ('reserved', 'settled')),
      created_at timestamptz not null,
      settled_at timestamptz
    )`,
    `create index spend_reservations_key_day_idx on spend_reservations (api_key_id, day)`,
    `create table transcripts (
      call_id uuid primary key references calls (id) on delete cascade,
      customer_id uuid not null references customers (id) on delete cascade,
      conversation_id text not null,
      segments jsonb not null,
      created_at timestamptz not null
    )`,
    `-- Outbox of callback_url notifications, written in the transaction of the change they report.
    create table callback_notifications (
      id uuid primary key,
      customer_id uuid not null references customers (id) on delete cascade,
      call_id uuid not null references calls (id) on delete cascade,
      sequence integer not null,
      event text not null,
      url text not null,
      body text not null,
      state text not null default 'pending' check (state in ('pending', 'delivered', 'failed')),
      attempts integer not null default 0,
      next_attempt_at timestamptz not null,
      leased_until timestamptz,
      last_status_code integer,
      last_error text,
      delivered_at timestamptz,
      created_at timestamptz not null
    )`,
    `create unique index callback_notifications_call_seq_idx on callback_notifications (call_id, sequence)`,
    `create index callback_notifications_due_idx on callback_notifications (next_attempt_at) where state = 'pending'`,
    `-- The callback signing secret is derived from the server secret and this version; never stored.
    create table callback_secrets (
      customer_id uuid primary key references customers (id) on delete cascade,
      version integer not null check (version >= 1),
      rotated_at timestamptz not null
    )`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    'drop table callback_secrets',
    'drop table callback_notifications',
    'drop table transcripts',
    'drop table spend_reservations',
    'drop table idempotency_keys',
    'drop table call_insights',
    'drop table call_lifecycle',
  ]);
}
