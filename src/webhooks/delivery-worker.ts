import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { SecretBox } from '../crypto/index.ts';
import type { Database, Notifications } from '../db/index.ts';
import { TIMEOUT_ERROR, type WebhookSender } from '../delivery/index.ts';
import { type ClaimRoom, roomForClaim } from './claim-room.ts';
import { createCompletionBuffer } from './completion-buffer.ts';
import { type ClaimedDelivery, claimDue } from './deliveries.repository.ts';
import { createEndpointLimits } from './endpoint-limits.ts';
import { openingOnce, sendAttempt } from './send-attempt.ts';

/**
 * An attempt out this long stops holding one of the worker's slots (it still holds its subscription's share):
 * it waits on a socket, not on the worker, and a receiver that hangs must not slow everyone else's deliveries.
 * At most `concurrency` attempts are set aside so, beside the slots and the answers waiting to be written, so a crash
 * repeats at most three times `concurrency` sends (see `slots`). 200 ms, not 1 s: the healthy receivers' rate beside
 * a hung one, median of 15 pairs, went from 0.94–0.98 to 0.99–1.00 on PGlite (docs/performance.md, "2026-11-25
 * (sixth)"); a receiver answering within it never notices.
 */
export const SLOW_ATTEMPT_MS = 200;

export type DeliveryWorkerOptions = {
  db: Database;
  clock: Clock;
  sender: WebhookSender;
  secretBox: SecretBox;
  logger: Logger;
  /** Deliveries in flight at once in this process. */
  concurrency: number;
  /**
   * In flight at once per subscription, so one slow receiver holds only a few slots; halved after each round of
   * timeouts and given back one per answer (src/webhooks/endpoint-limits.ts).
   */
  perSubscription: number;
  /** How long a claim holds a delivery; longer than the send timeout. */
  leaseMs: number;
  /** How long after a claim that found nothing the next one starts, when no notification comes first. */
  pollMs: number;
  /**
   * `webhook_deliveries_due` wakes the loop at once when an outbox commits (and after a possible gap in the
   * notifications); polling stays the fallback.
   */
  notifications?: Notifications;
  /**
   * Finished attempts are recorded together, one transaction per batch, once `batchSize` are waiting
   * (default: concurrency) or `batchDelayMs` after the first (default 5 ms).
   */
  batchSize?: number;
  batchDelayMs?: number;
  random?: () => number;
  /** Called once an attempt is recorded. */
  onAttempt?: (outcome: { ok: boolean; disabled: boolean }) => void;
};

export type DeliveryWorker = {
  /**
   * Claims what is due now, sends it all, and records the attempts: for tests and the CLI. Returns how
   * many were attempted.
   */
  runOnce(): Promise<number>;
  /** Repeats runOnce until nothing is due. */
  drain(): Promise<number>;
  start(): void;
  /** Whether the loop runs, and when it last went round (wall-clock ms), for readiness. */
  health(): { running: boolean; lastLoopAt: number };
  /** Stops claiming, waits for the attempts in flight, and records them. */
  stop(): Promise<void>;
};

export function createDeliveryWorker(o: DeliveryWorkerOptions): DeliveryWorker {
  const completions = createCompletionBuffer({
    db: o.db,
    logger: o.logger,
    maxBatch: o.batchSize ?? o.concurrency,
    maxDelayMs: o.batchDelayMs ?? 5,
    onWritten(outcomes, disabled) {
      for (const d of disabled)
        o.logger.warn(
          { subscription_id: d.subscriptionId, reason: d.reason },
          'webhook subscription disabled',
        );
      const disabling = new Set(disabled.map((d) => d.deliveryId));
      for (const outcome of outcomes)
        o.onAttempt?.({ ok: outcome.status === 'delivered', disabled: disabling.has(outcome.deliveryId) });
    },
    onSettled: () => pump(),
  });
  const inFlight = new Map<string, number>();
  const limits = createEndpointLimits({ max: o.perSubscription, clock: o.clock });
  /** Attempts in flight, with when each started (clock ms). */
  const running = new Map<Promise<void>, number>();
  let slowCheck: NodeJS.Timeout | null = null;
  let topUp: NodeJS.Timeout | null = null;
  /** Claims waiting for the database, with the room each may fill. */
  const claiming = new Map<Promise<number>, ClaimRoom>();
  let active = false;
  let poll: NodeJS.Timeout | null = null;
  let unlisten: (() => void) | null = null;
  // A notification that came while claims were out: those claims may have read the queue before its commit.
  let woken = false;
  let lastLoopAt = 0;
  // Slots are refilled in batches, once half are free, rather than with one claim per finished attempt (each
  // claim and each write costs the database about the same whatever its size; at a quarter the bench drained slower);
  // a second claim may start while the first waits for the database, so slots do not wait for both.
  const refillAt = Math.ceil(o.concurrency / 2);
  const overlappingClaims = 2;
  const slowSince = () => o.clock.now().getTime() - SLOW_ATTEMPT_MS;
  const slow = () => {
    const since = slowSince();
    let n = 0;
    for (const startedAt of running.values()) if (startedAt <= since) n += 1;
    return Math.min(n, o.concurrency);
  };
  // Outcomes not yet written may number `concurrency` before they take slots: so the next claim goes out while the
  // last batch is written (measured: a worker that waited for each write sent in lockstep, claim, send, write). Past
  // that (writes that stall), claims wait for the writes. Attempts set aside as slow have an allowance of their own
  // (at most `concurrency`, see `slow`): sharing this one, a hung receiver's attempts made the worker wait for
  // writes more often and the healthy receivers lost 4-7 % of their rate (docs/performance.md, "2026-11-26"). So a
  // crash repeats at most three times `concurrency` sends: in slots, answered, set aside.
  const slots = () => {
    const setAside = slow();
    const answered = completions.unrecorded();
    return o.concurrency - (running.size - setAside) - Math.max(0, answered - o.concurrency);
  };
  const room = () =>
    roomForClaim({
      slots: slots(),
      perSubscription: o.perSubscription,
      held: limits.held(),
      inFlight,
      claiming: claiming.values(),
    });

  /** Sends one delivery; its slot is free again once the outcome is written. */
  function launch(delivery: ClaimedDelivery, secretBox: SecretBox) {
    const sub = delivery.subscription_id;
    inFlight.set(sub, (inFlight.get(sub) ?? 0) + 1);
    const p = sendAttempt(delivery, { sender: o.sender, clock: o.clock, random: o.random, secretBox })
      .then((outcome) => {
        limits.record(sub, { timedOut: outcome.error === TIMEOUT_ERROR, startedAt: outcome.startedAt });
        completions.add(outcome);
      })
      .catch((err: unknown) => o.logger.error({ err, delivery_id: delivery.id }, 'webhook attempt crashed'))
      .finally(() => {
        const left = (inFlight.get(sub) ?? 1) - 1;
        if (left > 0) inFlight.set(sub, left);
        else inFlight.delete(sub);
        running.delete(p);
        pump();
      });
    running.set(p, o.clock.now().getTime());
  }

  /** Claims what `r` leaves room for and launches it; returns how many it launched. */
  function claim(r: ClaimRoom): Promise<number> {
    const claimed = claimDue(o.db, o.clock.now(), r, o.leaseMs).then(
      (deliveries) => {
        claiming.delete(claimed);
        const secretBox = openingOnce(o.secretBox);
        for (const d of deliveries) launch(d, secretBox);
        return deliveries.length;
      },
      (err: unknown) => {
        claiming.delete(claimed);
        o.logger.error({ err }, 'webhook claim failed; retrying');
        return 0;
      },
    );
    claiming.set(claimed, r);
    return claimed;
  }

  /** Starts claims while a batch of slots is free. */
  function pump() {
    if (!active) return;
    lastLoopAt = Date.now();
    let r = room();
    for (; claiming.size < overlappingClaims && r.limit >= refillAt; r = room()) {
      woken = false;
      void claim(r).then(afterClaim);
    }
    topUpLater(r.limit);
    watchForSlow(r.limit);
  }

  /**
   * Fewer slots free than a batch, and nothing claiming: they are filled pollMs later all the same, so attempts that
   * hold the other slots for long (receivers that answer slowly, not yet slow) never keep the free ones idle.
   */
  function topUpLater(free: number) {
    if (topUp || claiming.size > 0 || free <= 0 || free >= refillAt) return;
    topUp = setTimeout(() => {
      topUp = null;
      if (!active || claiming.size > 0) return;
      const r = room();
      if (r.limit > 0) void claim(r).then(afterClaim);
    }, o.pollMs);
  }

  /** With every slot taken, looks again when the oldest attempt in flight turns slow and frees one. */
  function watchForSlow(free: number) {
    if (slowCheck || running.size === 0 || free >= refillAt) return;
    const since = slowSince();
    const waiting = [...running.values()].filter((startedAt) => startedAt > since);
    if (waiting.length === 0) return;
    slowCheck = setTimeout(
      () => {
        slowCheck = null;
        pump();
      },
      Math.min(...waiting) - since,
    );
  }

  /** Something new is due: claim now, or as soon as a claim under way returns. Many wake-ups make one claim. */
  function wake() {
    woken = true;
    pump();
  }

  /**
   * After a claim that found nothing, the next look is pollMs later (or when an attempt finishes, or a
   * notification comes).
   */
  function afterClaim(launched: number) {
    if (launched > 0 || woken) pump();
    else if (active)
      poll ??= setTimeout(() => {
        poll = null;
        pump();
      }, o.pollMs);
  }

  /** Waits until every claimed delivery has been sent. */
  async function settle() {
    await Promise.all(claiming.keys());
    while (running.size > 0) await Promise.all([...running.keys()]);
  }

  const worker: DeliveryWorker = {
    async runOnce() {
      const launched = await claim(room());
      await settle();
      await completions.flush();
      return launched;
    },
    async drain() {
      let total = 0;
      for (let n = await worker.runOnce(); n > 0; n = await worker.runOnce()) total += n;
      return total;
    },
    health() {
      return { running: active, lastLoopAt };
    },
    start() {
      if (active) return;
      active = true;
      unlisten = o.notifications?.listen('webhook_deliveries_due', wake, wake) ?? null;
      pump();
    },
    async stop() {
      active = false;
      unlisten?.();
      unlisten = null;
      if (poll) clearTimeout(poll);
      poll = null;
      if (slowCheck) clearTimeout(slowCheck);
      slowCheck = null;
      if (topUp) clearTimeout(topUp);
      topUp = null;
      await settle();
      await completions.flush();
    },
  };
  return worker;
}
