import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * The claim's plan, whatever ANALYZE last saw of the outbox (docs/performance.md, twenty-fourth section).
 *
 * - No statistics on `status`. Between bursts nothing is pending, and that is what ANALYZE (autovacuum's, or the
 *   worker's own where there is none) usually finds: the planner then takes every `status = 'pending'` index for
 *   empty and locks each claimed row through a walk of the whole due index (56 ms a claim instead of 3 beside a hung
 *   receiver's backlog, PGlite). The share of pending rows swings from none to all within seconds, so no sample of
 *   it holds; without one the planner assumes a small share. Setting the target keeps ANALYZE from taking new
 *   statistics but leaves those taken before: where there are some, the column's type is set again (to the same
 *   type), which drops them (and rebuilds the indexes on `status` once, under the table's lock).
 * - No due index across subscriptions. Once ANALYZE has seen deliveries stored event by event, the planner reads
 *   each subscription's due rows from it (cheap heap order) rather than from the subscription's own stretch of
 *   `webhook_deliveries_due_by_subscription_idx`, and so every claim steps over a hung receiver's whole backlog
 *   again (3 → 7 ms a claim, PGlite). Only the outbox gauges read it besides; they read the other index now.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `alter table webhook_deliveries alter column status set statistics 0`,
    `do $$ begin
      if exists (select from pg_stats where schemaname = current_schema() and tablename = 'webhook_deliveries'
                 and attname = 'status') then
        alter table webhook_deliveries alter column status type text;
      end if;
    end $$`,
    `drop index webhook_deliveries_due_idx`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where status = 'pending'`,
    `alter table webhook_deliveries alter column status set statistics -1`,
  ]);
}
