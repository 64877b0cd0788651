import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { randomNanpNumber } from '../provider/random.ts';
import type { Simulator } from '../simulator/simulator.ts';
import { randomInboundTarget } from './lifecycle.repository.ts';
import type { LifecycleService } from './lifecycle.service.ts';

export type VoiceParts = { simulator: Simulator; lifecycle: LifecycleService };

const PROCESS_BATCH = 20;
const CALLER_NAMES = ['Maria Garcia', 'James Smith', 'Wei Chen', 'Aisha Khan', 'Liam Tremblay', null];

/**
 * One step of the world: the simulator's transitions due by `now` become our call records, then
 * every due post-processing runs. Tests call it after moving a ManualClock; the driver every second. A backlog
 * makes a step long, so once `signal` is aborted (the server is stopping) it ends at the next call or batch and
 * leaves the rest due.
 */
export async function runProviderTick(
  parts: VoiceParts,
  now: Date,
  signal?: AbortSignal,
): Promise<{ events: number; finished: number }> {
  const events = await parts.simulator.runDue(
    now,
    (event) => parts.lifecycle.applyProviderEvent(event),
    signal,
  );
  let finished = 0;
  while (!signal?.aborted) {
    const n = await parts.lifecycle.processDue(PROCESS_BATCH);
    finished += n;
    if (n < PROCESS_BATCH) break;
  }
  return { events, finished };
}

/** A stranger calls a random active assistant (demo traffic). False when no assistant can take calls. */
export async function ringRandomAssistant(db: Database, simulator: Simulator): Promise<boolean> {
  const target = await randomInboundTarget(db);
  const to = target?.phone_numbers[0];
  if (!target || !to) return false;
  await simulator.simulateInbound({
    assistantId: target.id,
    to,
    from: randomNanpNumber(Math.random),
    callerName: CALLER_NAMES[Math.floor(Math.random() * CALLER_NAMES.length)] ?? null,
    language: target.language,
  });
  return true;
}

export type ProviderDriver = { stop(): Promise<void> };

/** Whether a reconciliation round is due at `now`: at the first asking (the start), then every `seconds`. */
export function reconcileSchedule(seconds: number): (now: Date) => boolean {
  let last = Number.NEGATIVE_INFINITY;
  return (now) => {
    if (now.getTime() - last < seconds * 1000) return false;
    last = now.getTime();
    return true;
  };
}

/**
 * Ticks the simulator with the real clock in the server process (default every second), reconciles calls that
 * have not ended with the provider (at start, then every `reconcileEverySeconds`) and, in demo
 * mode, rings assistants at `inboundPerMinute`. Ticks never overlap; a failing tick is logged and
 * the next one tries again (undelivered provider events stay queued).
 */
export function startProviderDriver(o: {
  db: Database;
  parts: VoiceParts;
  clock: Clock;
  logger: Logger;
  intervalMs?: number;
  inboundPerMinute?: number;
  /** Reconcile every call that has not ended with the provider on the first tick, then this often. */
  reconcileEverySeconds?: number;
}): ProviderDriver {
  const intervalMs = o.intervalMs ?? 1000;
  let credit = 0;
  const reconcileDue = o.reconcileEverySeconds ? reconcileSchedule(o.reconcileEverySeconds) : () => false;
  let running: Promise<void> | null = null;
  const stopping = new AbortController();
  const reconcile = async () => {
    if (!reconcileDue(o.clock.now())) return;
    try {
      const report = await o.parts.lifecycle.reconcile(stopping.signal);
      if (report.applied + report.lost + report.retryLater > 0) o.logger.info(report, 'calls reconciled');
    } catch (err) {
      o.logger.error({ err }, 'reconcile failed');
    }
  };
  const tick = async () => {
    await reconcile();
    try {
      credit += ((o.inboundPerMinute ?? 0) * intervalMs) / 60_000;
      for (; credit >= 1; credit -= 1) await ringRandomAssistant(o.db, o.parts.simulator);
      await runProviderTick(o.parts, o.clock.now(), stopping.signal);
    } catch (err) {
      o.logger.error({ err }, 'provider tick failed');
    }
  };
  const timer = setInterval(() => {
    if (running) return;
    running = tick().finally(() => {
      running = null;
    });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      stopping.abort();
      await running;
    },
  };
}
