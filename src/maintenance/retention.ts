import type { Database } from '../db/database.ts';

const DAY_MS = 86_400_000;

export type RetentionPolicy = { webhookLogDays: number; authFailureDays: number };

/**
 * Deletes what has outlived its retention: delivery attempts and finished deliveries (the delivery
 * log), and recorded authentication failures. Pending deliveries are never touched. Safe to run in
 * several processes at once.
 */
export async function purgeExpired(db: Database, now: Date, policy: RetentionPolicy) {
  const logCutoff = new Date(now.getTime() - policy.webhookLogDays * DAY_MS);
  const authCutoff = new Date(now.getTime() - policy.authFailureDays * DAY_MS);
  const attempts = await db
    .deleteFrom('webhook_attempts')
    .where('attempted_at', '<', logCutoff)
    .executeTakeFirst();
  const deliveries = await db
    .deleteFrom('webhook_deliveries')
    .where('status', '<>', 'pending')
    .where('created_at', '<', logCutoff)
    .executeTakeFirst();
  const failures = await db
    .deleteFrom('auth_failures')
    .where('occurred_at', '<', authCutoff)
    .executeTakeFirst();
  return {
    attempts: Number(attempts.numDeletedRows),
    deliveries: Number(deliveries.numDeletedRows),
    authFailures: Number(failures.numDeletedRows),
  };
}
