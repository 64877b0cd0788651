import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * The first bytes of the receiver's answer (at most 1 KiB as received, decoded as UTF-8 by the sender), shown in
 * the dashboard's delivery log; attempts from before it have none (null). The index serves one endpoint's log
 * (newest first, optionally failed only) and its 24 h / 7 d charts as range scans instead of reading every
 * attempt of every customer.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `alter table webhook_attempts add column response_excerpt text`,
    `create index webhook_attempts_subscription_time_idx
       on webhook_attempts (subscription_id, attempted_at desc, id desc)`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `drop index webhook_attempts_subscription_time_idx`,
    `alter table webhook_attempts drop column response_excerpt`,
  ]);
}
