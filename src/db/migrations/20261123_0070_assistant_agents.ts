import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    // An assistant's upstream agent (PROVIDER=elevenlabs) and, per phone number, the provider's id of it.
    `create table assistant_agents (
       assistant_id uuid primary key references assistants (id) on delete cascade,
       agent_id text not null,
       phone_numbers jsonb not null default '{}'::jsonb,
       updated_at timestamptz not null
     )`,
    `create index assistant_agents_agent_idx on assistant_agents (agent_id)`,
    // The carrier's own id of a placed call (Twilio call SID, SIP call id), beside the provider's.
    `alter table call_lifecycle add column carrier_call_id text`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `alter table call_lifecycle drop column carrier_call_id`,
    `drop table assistant_agents`,
  ]);
}
