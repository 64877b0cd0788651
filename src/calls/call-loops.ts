import { type Loop, type LoopLogger, startLoop } from '../loop.ts';
import type { LifecycleService } from './lifecycle.service.ts';

const PROCESS_BATCH = 20;
/** How often ended calls are looked at for post-processing that has come due. */
export const POST_PROCESS_INTERVAL_MS = 1_000;

type CallLoopParts = Pick<LifecycleService, 'processDue' | 'reconcile'>;

/**
 * Every ended call whose post-processing is due, batch after batch. A backlog makes it long, so once `signal` is
 * aborted (the server is stopping) it ends after the batch in hand and leaves the rest due. Returns how many
 * calls were finished.
 */
export async function processAllDue(
  lifecycle: Pick<LifecycleService, 'processDue'>,
  signal?: AbortSignal,
): Promise<number> {
  let finished = 0;
  while (!signal?.aborted) {
    const n = await lifecycle.processDue(PROCESS_BATCH);
    finished += n;
    if (n < PROCESS_BATCH) break;
  }
  return finished;
}

/**
 * The calls' own schedule in the server process, whichever provider runs: post-processing of ended calls every
 * second, and reconciliation of every call that has not ended with its provider at start, then every
 * `reconcileIntervalSeconds` (RECONCILE_INTERVAL_SECONDS). Stop it before closing the database.
 */
export function startCallLoops(deps: {
  lifecycle: CallLoopParts;
  logger: LoopLogger & { info(obj: object, msg: string): void };
  reconcileIntervalSeconds: number;
  postProcessIntervalMs?: number;
}): Loop {
  const { lifecycle, logger } = deps;
  const loops = [
    startLoop(
      {
        name: 'call post-processing',
        intervalMs: deps.postProcessIntervalMs ?? POST_PROCESS_INTERVAL_MS,
        logger,
      },
      (signal) => processAllDue(lifecycle, signal),
    ),
    startLoop(
      {
        name: 'call reconciliation',
        intervalMs: deps.reconcileIntervalSeconds * 1000,
        runAtStart: true,
        logger,
      },
      async (signal) => {
        const report = await lifecycle.reconcile(signal);
        if (report.applied + report.lost + report.retryLater > 0) logger.info(report, 'calls reconciled');
      },
    ),
  ];
  return {
    async stop() {
      await Promise.all(loops.map((loop) => loop.stop()));
    },
  };
}
