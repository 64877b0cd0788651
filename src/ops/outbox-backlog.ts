import type { Logger } from 'pino';

export type OutboxStats = { due: number; oldestDueSeconds: number };

export type BacklogWatch = {
  /** Reads the outbox; logs a warning while it is behind, and once when it has caught up. */
  check(): Promise<void>;
  /** The readiness warning while the oldest due delivery is older than the threshold, else null. */
  warning(): string | null;
};

/**
 * Watches the webhook outbox for a backlog: deliveries due longer than `thresholdSeconds` mean the workers do
 * not keep up (events arrive faster than they drain, or receivers hold the slots). It only tells: nothing is
 * ever dropped, the deliveries wait their turn.
 */
export function createBacklogWatch(o: {
  read(): Promise<OutboxStats>;
  thresholdSeconds: number;
  logger: Logger;
}): BacklogWatch {
  let behind: OutboxStats | null = null;
  return {
    async check() {
      const stats = await o.read();
      const now = stats.oldestDueSeconds > o.thresholdSeconds ? stats : null;
      if (now)
        o.logger.warn(
          {
            due: now.due,
            oldest_due_seconds: Math.round(now.oldestDueSeconds),
            threshold_seconds: o.thresholdSeconds,
          },
          'webhook outbox is behind: deliveries are due faster than the workers send them',
        );
      else if (behind) o.logger.info({ due: stats.due }, 'webhook outbox has caught up');
      behind = now;
    },
    warning() {
      return behind
        ? `webhook outbox behind: ${behind.due} deliveries due, the oldest for ${Math.round(behind.oldestDueSeconds)} s (threshold ${o.thresholdSeconds} s)`
        : null;
    },
  };
}
