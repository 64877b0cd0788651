import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    // The simulator's upstream state: it stands in for an external system, so it outlives our processes.
    `create table simulator_calls (
       provider_call_id text primary key,
       account text not null,
       call_id text,
       conversation_id text not null unique,
       script_input jsonb not null,
       inbound jsonb,
       steps jsonb not null,
       next_step integer not null default 0,
       next_at timestamptz,
       leased_until timestamptz,
       placed_at timestamptz not null,
       ends_at timestamptz not null
     )`,
    `create unique index simulator_calls_call_idx on simulator_calls (call_id) where call_id is not null`,
    `create index simulator_calls_due_idx on simulator_calls (account, next_at) where next_at is not null`,
    `create index simulator_calls_ends_idx on simulator_calls (ends_at) where next_at is null`,
    // Calls that have not ended yet: what reconciliation walks.
    `create index call_lifecycle_open_idx on call_lifecycle (created_at) where processing_state = 'none'`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [`drop index call_lifecycle_open_idx`, `drop table simulator_calls`]);
}
