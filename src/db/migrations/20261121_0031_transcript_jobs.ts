import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    // One job per answered call while a call.transcript.ready subscription exists; done in the same
    // transaction that records the event, so the event fires once.
    `create table transcript_jobs (
      call_id uuid primary key references calls (id) on delete cascade,
      customer_id uuid not null references customers (id) on delete cascade,
      status text not null check (status in ('pending', 'done', 'expired', 'cancelled')),
      attempts integer not null default 0,
      next_attempt_at timestamptz not null,
      deadline_at timestamptz not null,
      leased_until timestamptz,
      last_result text,
      created_at timestamptz not null
    )`,
    `create index transcript_jobs_due_idx on transcript_jobs (next_attempt_at) where status = 'pending'`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [`drop table transcript_jobs`]);
}
