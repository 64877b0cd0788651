import { type Kysely, sql } from 'kysely';
import { runStatements } from '../run-statements.ts';

// Raw SQL on purpose: the same text must run on PGlite (PostgreSQL 18) and PostgreSQL 15.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `create table customers (
      id uuid primary key,
      name text not null,
      rate_limit_per_minute integer not null default 60 check (rate_limit_per_minute between 1 and 600),
      created_at timestamptz not null
    )`,
    `create table api_keys (
      id uuid primary key,
      customer_id uuid not null references customers (id) on delete cascade,
      name text not null,
      prefix text not null,
      scopes text[] not null,
      expires_at timestamptz,
      revoked_at timestamptz,
      daily_spend_cap_usd numeric(12, 2) not null check (daily_spend_cap_usd >= 0),
      allowed_countries text[] not null,
      rate_limit_per_minute integer check (rate_limit_per_minute between 1 and 600),
      created_at timestamptz not null,
      last_used_at timestamptz
    )`,
    `create index api_keys_customer_idx on api_keys (customer_id, created_at, id)`,
    `create index api_keys_prefix_idx on api_keys (prefix)`,
    `-- One row per key value: rotation adds a row and gives the old one a valid_until (the grace end).
    create table api_key_secrets (
      hash text primary key,
      key_id uuid not null references api_keys (id) on delete cascade,
      created_at timestamptz not null,
      valid_until timestamptz
    )`,
    `create index api_key_secrets_key_idx on api_key_secrets (key_id)`,
    `create table auth_failures (
      id bigint generated always as identity primary key,
      occurred_at timestamptz not null,
      ip text not null,
      key_prefix text,
      reason text not null
    )`,
    `create index auth_failures_time_idx on auth_failures (occurred_at)`,
    `create table assistants (
      id uuid primary key,
      customer_id uuid not null references customers (id) on delete cascade,
      name text not null,
      description text not null default '',
      language text not null,
      voice_id text not null,
      is_active boolean not null default true,
      phone_numbers text[] not null default '{}',
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`,
    `create index assistants_customer_idx on assistants (customer_id, created_at desc, id desc)`,
    `create table calls (
      id uuid primary key,
      customer_id uuid not null references customers (id) on delete cascade,
      assistant_id uuid not null references assistants (id),
      direction text not null check (direction in ('inbound', 'outbound')),
      status text not null,
      started_at timestamptz not null,
      answered_at timestamptz,
      ended_at timestamptz,
      duration_seconds integer,
      from_number text not null,
      to_number text not null,
      caller_name text,
      api_initiated boolean not null default false,
      api_key_id uuid references api_keys (id) on delete set null,
      external_id text,
      variables jsonb,
      metadata jsonb,
      callback_url text,
      has_transcript boolean not null default false,
      recording_available boolean not null default false,
      summary text,
      disconnect_reason text,
      conversation_id text,
      cost_usd numeric(12, 4),
      billable_seconds integer,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`,
    `-- Keyset pagination: every list query is a range scan on one of these, newest first.
    create index calls_customer_started_idx on calls (customer_id, started_at desc, id desc)`,
    `create index calls_customer_direction_started_idx on calls (customer_id, direction, started_at desc, id desc)`,
    `create index calls_customer_assistant_started_idx on calls (customer_id, assistant_id, started_at desc, id desc)`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table calls, assistants, auth_failures, api_key_secrets, api_keys, customers`.execute(db);
}
