import { type CallRemoval, RETENTION_BATCH } from '../calls/index.ts';
import type { Clock } from '../clock.ts';
import { type Loop, type LoopLogger, startLoop } from '../loop.ts';

const DAY_MS = 86_400_000;
/** How often calls past their retention are looked for: retention is in days, so a few minutes late is nothing. */
export const CALL_RETENTION_INTERVAL_MS = 15 * 60_000;
/** Between two batches of one run: other statements (PGlite has one session) go first. */
const PAUSE_MS = 50;

export type CallRetentionDeps = {
  /** Every customer whose calls are not kept for ever, with its period (customers/, test twins included). */
  customers: { retentionTargets(): Promise<{ customerId: string; days: number }[]> };
  removal: Pick<CallRemoval, 'deleteExpiredBatch' | 'purgeTombstones'>;
  clock: Clock;
  /** Calls per statement (RETENTION_BATCH unless said). */
  batch?: number;
  pauseMs?: number;
};

export type CallRetentionReport = { calls: number; customers: number; tombstones: number };

/**
 * Deletes every customer's calls that started more than its retention ago, in batches of `batch` calls (each one
 * short transaction: its calls, what cascades from them, their Idempotency-Key records), customer after customer;
 * then the tombstones nothing can name any more. Several workers may run it at once (a batch skips the rows another
 * holds). Once `signal` is aborted it ends after the batch in hand; the next run carries on.
 */
export async function purgeExpiredCalls(
  deps: CallRetentionDeps,
  signal?: AbortSignal,
): Promise<CallRetentionReport> {
  const report: CallRetentionReport = { calls: 0, customers: 0, tombstones: 0 };
  const now = deps.clock.now();
  const batch = deps.batch ?? RETENTION_BATCH;
  for (const { customerId, days } of await deps.customers.retentionTargets()) {
    const before = new Date(now.getTime() - days * DAY_MS);
    let deleted = 0;
    for (;;) {
      if (signal?.aborted) return report;
      const n = await deps.removal.deleteExpiredBatch(customerId, before, batch);
      deleted += n;
      report.calls += n;
      if (n < batch) break;
      await new Promise((resolve) => setTimeout(resolve, deps.pauseMs ?? PAUSE_MS));
    }
    if (deleted > 0) report.customers += 1;
  }
  report.tombstones = await deps.removal.purgeTombstones(now);
  return report;
}

/** The retention loop of a worker: every CALL_RETENTION_INTERVAL_MS, what it deleted logged. */
export function startCallRetention(
  deps: CallRetentionDeps & { logger: LoopLogger & { info(obj: object, msg: string): void } },
  intervalMs = CALL_RETENTION_INTERVAL_MS,
): Loop {
  return startLoop({ name: 'call retention', intervalMs, logger: deps.logger }, async (signal) => {
    const report = await purgeExpiredCalls(deps, signal);
    if (report.calls + report.tombstones > 0) deps.logger.info(report, 'calls past their retention deleted');
  });
}
