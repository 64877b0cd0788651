import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `create table dashboard_users (
      id uuid primary key,
      customer_id uuid not null references customers (id) on delete cascade,
      email text not null check (email = lower(email)),
      password_hash text not null,
      created_at timestamptz not null,
      last_login_at timestamptz
    )`,
    `create unique index dashboard_users_email_idx on dashboard_users (email)`,
    `create index dashboard_users_customer_idx on dashboard_users (customer_id)`,
    // Only a SHA-256 of the random session token is stored: a database dump holds no usable session.
    `create table dashboard_sessions (
      id uuid primary key,
      token_hash text not null,
      user_id uuid not null references dashboard_users (id) on delete cascade,
      customer_id uuid not null references customers (id) on delete cascade,
      csrf_token text not null,
      flash_encrypted text,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      last_seen_at timestamptz not null
    )`,
    `create unique index dashboard_sessions_token_idx on dashboard_sessions (token_hash)`,
    `create index dashboard_sessions_user_idx on dashboard_sessions (user_id)`,
    `create index dashboard_sessions_expires_idx on dashboard_sessions (expires_at)`,
    // Requests per API key per UTC day, upserted in batches from an in-memory accumulator.
    `create table key_usage_daily (
      key_id uuid not null references api_keys (id) on delete cascade,
      day date not null,
      customer_id uuid not null references customers (id) on delete cascade,
      requests bigint not null default 0,
      errors bigint not null default 0,
      primary key (key_id, day)
    )`,
    `create index key_usage_daily_customer_idx on key_usage_daily (customer_id, day)`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [`drop table key_usage_daily, dashboard_sessions, dashboard_users`]);
}
