import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Call data lifecycle (issue 39): each customer's retention of calls (null: the operator's default; 0: for ever)
 * and its transcript redaction; a tombstone per deleted call, so a late provider event or a retried request
 * cannot make it again; the spend ledger outlives the calls it billed (billing, not call content), so a deleted
 * call still counts against its key's daily cap; an Idempotency-Key whose call was deleted says so.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `alter table customers
       add column call_retention_days integer check (call_retention_days >= 0),
       add column redact_transcripts boolean not null default false`,
    `create table deleted_calls (
      call_id uuid primary key,
      customer_id uuid not null references customers (id) on delete cascade,
      provider_call_id text,
      deleted_at timestamptz not null
    )`,
    `create index deleted_calls_provider_idx on deleted_calls (provider_call_id) where provider_call_id is not null`,
    `create index deleted_calls_time_idx on deleted_calls (deleted_at)`,
    `alter table spend_reservations drop constraint spend_reservations_call_id_fkey`,
    `alter table idempotency_keys drop constraint idempotency_keys_state_check`,
    `alter table idempotency_keys add constraint idempotency_keys_state_check
       check (state in ('in_flight', 'completed', 'failed', 'resource_deleted'))`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `delete from idempotency_keys where state = 'resource_deleted'`,
    `alter table idempotency_keys drop constraint idempotency_keys_state_check`,
    `alter table idempotency_keys add constraint idempotency_keys_state_check
       check (state in ('in_flight', 'completed', 'failed'))`,
    `delete from spend_reservations s
       where s.call_id is not null and not exists (select 1 from calls c where c.id = s.call_id)`,
    `alter table spend_reservations add constraint spend_reservations_call_id_fkey
       foreign key (call_id) references calls (id) on delete cascade`,
    `drop table deleted_calls`,
    `alter table customers drop column call_retention_days, drop column redact_transcripts`,
  ]);
}
