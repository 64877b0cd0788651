import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Text messages (issue 38): the messages and each status they reached, the recipients who replied STOP, the
 * simulator's messages in flight; a message's events (`events.message_id`); its spend in the key's ledger beside
 * the calls' (`spend_reservations.message_id`); an Idempotency-Key names a call or a message (`resource_id`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `create table sms_messages (
      id text primary key,
      customer_id uuid not null references customers (id) on delete cascade,
      api_key_id uuid references api_keys (id) on delete set null,
      assistant_id uuid not null references assistants (id) on delete cascade,
      livemode boolean not null default true,
      direction text not null check (direction in ('outbound', 'inbound')),
      from_number text not null,
      to_number text not null,
      body text not null,
      encoding text not null check (encoding in ('GSM-7', 'UCS-2')),
      segments integer not null check (segments >= 1),
      status text not null check (status in ('queued', 'sending', 'sent', 'delivered', 'undelivered', 'failed', 'received')),
      provider text not null,
      provider_message_id text,
      error_code text,
      error_message text,
      external_id text,
      metadata jsonb,
      cost_usd numeric(12, 4) not null default 0 check (cost_usd >= 0),
      created_at timestamptz not null,
      updated_at timestamptz not null,
      final_at timestamptz
    )`,
    `create unique index sms_messages_provider_idx on sms_messages (provider, provider_message_id)
      where provider_message_id is not null`,
    `create index sms_messages_customer_idx on sms_messages (customer_id, created_at desc, id desc)`,
    `create index sms_messages_assistant_idx on sms_messages (customer_id, assistant_id, created_at desc, id desc)`,
    `create index sms_messages_key_idx on sms_messages (api_key_id, created_at desc, id desc)`,
    `-- Outbound messages still waiting for their final status: what reconciliation asks about.
    create index sms_messages_unsettled_idx on sms_messages (created_at)
      where final_at is null and direction = 'outbound'`,
    `create table sms_status_history (
      message_id text not null references sms_messages (id) on delete cascade,
      status text not null,
      error_code text,
      at timestamptz not null,
      primary key (message_id, status)
    )`,
    `-- A recipient who replied STOP to a sender: nothing more is sent from it to them until they reply START.
    create table sms_opt_outs (
      livemode boolean not null,
      sender text not null,
      recipient text not null,
      opted_out_at timestamptz not null,
      primary key (livemode, sender, recipient)
    )`,
    `create table simulator_messages (
      provider_message_id text primary key,
      account text not null,
      message_id text not null,
      to_number text not null,
      steps jsonb not null,
      next_step integer not null default 0,
      next_at timestamptz,
      created_at timestamptz not null,
      unique (account, message_id)
    )`,
    `create index simulator_messages_due_idx on simulator_messages (account, next_at) where next_at is not null`,
    `alter table events add column message_id text references sms_messages (id) on delete cascade`,
    `alter table spend_reservations drop constraint spend_reservations_pkey`,
    `alter table spend_reservations alter column call_id drop not null`,
    `alter table spend_reservations add column message_id text references sms_messages (id) on delete cascade`,
    `alter table spend_reservations add constraint spend_reservations_call_id_key unique (call_id)`,
    `alter table spend_reservations add constraint spend_reservations_message_id_key unique (message_id)`,
    `alter table spend_reservations add constraint spend_reservations_one_item
      check (num_nonnulls(call_id, message_id) = 1)`,
    `alter table idempotency_keys rename column call_id to resource_id`,
    `alter table idempotency_keys alter column resource_id type text`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `alter table idempotency_keys alter column resource_id type uuid using resource_id::uuid`,
    `alter table idempotency_keys rename column resource_id to call_id`,
    `delete from spend_reservations where message_id is not null`,
    `alter table spend_reservations drop constraint spend_reservations_one_item`,
    `alter table spend_reservations drop constraint spend_reservations_message_id_key`,
    `alter table spend_reservations drop constraint spend_reservations_call_id_key`,
    `alter table spend_reservations drop column message_id`,
    `alter table spend_reservations alter column call_id set not null`,
    `alter table spend_reservations add primary key (call_id)`,
    `delete from events where message_id is not null`,
    `alter table events drop column message_id`,
    `drop table simulator_messages`,
    `drop table sms_opt_outs`,
    `drop table sms_status_history`,
    `drop table sms_messages`,
  ]);
}
