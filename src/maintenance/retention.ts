import type { Database } from '../db/index.ts';
import { purgeAuthFailures } from '../keys/index.ts';
import { purgeExpiredIdempotencyKeys } from '../outbound/index.ts';
import { purgeDeliveryLog } from '../webhooks/index.ts';

const DAY_MS = 86_400_000;

export type RetentionPolicy = { webhookLogDays: number; authFailureDays: number };

/**
 * Deletes what has outlived its retention, each through its owner: the delivery log (webhooks), recorded
 * authentication failures (keys) and Idempotency-Key records past their 24 hours (outbound; each customer's own
 * are also purged when it claims a key, but one that stops placing calls never does). Pending deliveries are never
 * touched. Safe to run in several processes at once. Calls have their own loop (call-retention.ts).
 */
export async function purgeExpired(db: Database, now: Date, policy: RetentionPolicy) {
  const log = await purgeDeliveryLog(db, new Date(now.getTime() - policy.webhookLogDays * DAY_MS));
  const authFailures = await purgeAuthFailures(db, new Date(now.getTime() - policy.authFailureDays * DAY_MS));
  const idempotencyKeys = await purgeExpiredIdempotencyKeys(db, now);
  return { ...log, authFailures, idempotencyKeys };
}
