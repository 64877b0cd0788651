import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * One row: a fingerprint of the server secret the database's keys are hashed with (never the secret), recorded by
 * the first process to start on it, so a process started with another secret is refused instead of answering 401
 * to every key (keys/server-secret-check.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `create table server_secret_fingerprint (
       id smallint primary key default 1 check (id = 1),
       fingerprint text not null,
       recorded_at timestamptz not null default now()
     )`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [`drop table server_secret_fingerprint`]);
}
