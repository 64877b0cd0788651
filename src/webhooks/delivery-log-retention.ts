import type { Database } from '../db/index.ts';

/**
 * Deletes the delivery log older than `cutoff`: attempts, and finished deliveries. Pending deliveries are never
 * touched. Safe to run in several processes at once.
 */
export async function purgeDeliveryLog(db: Database, cutoff: Date) {
  const attempts = await db
    .deleteFrom('webhook_attempts')
    .where('attempted_at', '<', cutoff)
    .executeTakeFirst();
  const deliveries = await db
    .deleteFrom('webhook_deliveries')
    .where('status', '<>', 'pending')
    .where('created_at', '<', cutoff)
    .executeTakeFirst();
  return { attempts: Number(attempts.numDeletedRows), deliveries: Number(deliveries.numDeletedRows) };
}
