import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Each subscription's pending deliveries in due order, so a claim reads every subscription's oldest due ones
 * directly (src/webhooks/deliveries.repository.ts). Walking the one due index from its oldest entry instead, each
 * claim stepped over the whole backlog of a receiver that had stopped answering (its whole share in flight), a
 * heap read per row, and the other receivers lost a sixth of their rate (docs/performance.md, 2026-11-25).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `create index webhook_deliveries_due_by_subscription_idx
       on webhook_deliveries (subscription_id, next_attempt_at) where status = 'pending'`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [`drop index webhook_deliveries_due_by_subscription_idx`]);
}
