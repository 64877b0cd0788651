import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    // Per-call counter: taking it locks the call row, so events of one call get gap-free, ordered numbers.
    `alter table calls add column event_seq integer not null default 0`,
    `create table events (
      id uuid primary key,
      customer_id uuid not null references customers (id) on delete cascade,
      type text not null,
      call_id uuid references calls (id) on delete cascade,
      sequence integer not null,
      data jsonb not null,
      occurred_at timestamptz not null
    )`,
    `create index events_customer_time_idx on events (customer_id, occurred_at desc, id desc)`,
    `create unique index events_call_sequence_idx on events (call_id, sequence)`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [`drop table events`, `alter table calls drop column event_seq`]);
}
