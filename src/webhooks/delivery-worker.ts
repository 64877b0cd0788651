import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Database } from '../db/database.ts';
import type { EventType } from '../events/events.table.ts';
import * as repo from './deliveries.repository.ts';
import { deliveryHeaders } from './delivery-headers.ts';
import { envelopeOf } from './envelope.ts';
import type { SendResult, WebhookSender } from './http-sender.ts';
import { nextAttemptDelayMs } from './retry-schedule.ts';
import type { DeliveryRow } from './webhooks.table.ts';

export type DeliveryWorkerOptions = {
  db: Database;
  clock: Clock;
  sender: WebhookSender;
  secretBox: SecretBox;
  logger: Logger;
  /** Deliveries in flight at once in this process. */
  concurrency: number;
  /** In flight at once per subscription, so one slow receiver holds only a few slots. */
  perSubscription: number;
  /** How long a claim holds a delivery; longer than the send timeout. */
  leaseMs: number;
  pollMs: number;
  random?: () => number;
  onAttempt?: (outcome: { ok: boolean; disabled: boolean }) => void;
};

export type DeliveryWorker = {
  /** Claims what is due now, sends it all, and waits: for tests and the CLI. Returns how many were attempted. */
  runOnce(): Promise<number>;
  /** Repeats runOnce until nothing is due. */
  drain(): Promise<number>;
  start(): void;
  /** Whether the loop runs, and when it last went round (wall-clock ms), for readiness. */
  health(): { running: boolean; lastLoopAt: number };
  /** Stops claiming and waits for the attempts in flight. */
  stop(): Promise<void>;
};

export function createDeliveryWorker(o: DeliveryWorkerOptions): DeliveryWorker {
  const inFlight = new Map<string, number>();
  const running = new Set<Promise<void>>();
  let active = false;
  let loop: Promise<void> | null = null;
  let wake: (() => void) | null = null;
  let lastLoopAt = 0;

  async function attempt(delivery: DeliveryRow, loaded: Awaited<ReturnType<typeof repo.loadForSending>>) {
    const event = loaded.events.get(delivery.event_id);
    const sub = loaded.subscriptions.get(delivery.subscription_id);
    if (!event || !sub) return;
    const body = JSON.stringify(envelopeOf(event));
    const result = await signedHeaders(sub, event, delivery.id, body).then(
      (headers) => o.sender.send(sub.url, headers, body),
      // A secret that no longer decrypts (the server secret changed) is a failed attempt like any other:
      // it is retried, counted, and disables the subscription at the limit instead of looping forever.
      (): SendResult => ({
        ok: false,
        statusCode: null,
        error: 'signing secret could not be decrypted',
        latencyMs: 0,
      }),
    );
    const at = o.clock.now();
    await repo.recordAttempt(o.db, {
      deliveryId: delivery.id,
      subscriptionId: sub.id,
      at,
      statusCode: result.statusCode,
      latencyMs: result.latencyMs,
      error: result.error,
    });
    if (result.ok && result.statusCode !== null) {
      await repo.markDelivered(o.db, delivery, at, result.statusCode);
      o.onAttempt?.({ ok: true, disabled: false });
      return;
    }
    const delay = nextAttemptDelayMs(delivery.attempts, o.random);
    const disabled = await repo.markFailed(o.db, delivery, {
      at,
      statusCode: result.statusCode,
      error: result.error ?? 'failed',
      retryAt: delay === null ? null : new Date(at.getTime() + delay),
      gone: result.statusCode === 410,
    });
    if (disabled)
      o.logger.warn({ subscription_id: sub.id, reason: result.error }, 'webhook subscription disabled');
    o.onAttempt?.({ ok: false, disabled });
  }

  async function signedHeaders(
    sub: Parameters<typeof deliveryHeaders>[0],
    event: { type: EventType; id: string },
    deliveryId: string,
    body: string,
  ): Promise<Record<string, string>> {
    return deliveryHeaders(sub, o.secretBox, {
      eventType: event.type,
      eventId: event.id,
      deliveryId,
      body,
      now: o.clock.now(),
    });
  }

  function launch(delivery: DeliveryRow, loaded: Awaited<ReturnType<typeof repo.loadForSending>>) {
    const sub = delivery.subscription_id;
    inFlight.set(sub, (inFlight.get(sub) ?? 0) + 1);
    const p = attempt(delivery, loaded)
      .catch((err: unknown) => o.logger.error({ err, delivery_id: delivery.id }, 'webhook attempt crashed'))
      .finally(() => {
        const left = (inFlight.get(sub) ?? 1) - 1;
        if (left > 0) inFlight.set(sub, left);
        else inFlight.delete(sub);
        running.delete(p);
        wake?.();
      });
    running.add(p);
  }

  /** Claims up to the free capacity and launches the attempts; returns how many it launched. */
  async function fill(): Promise<number> {
    const free = o.concurrency - running.size;
    if (free <= 0) return 0;
    const claimed = await repo.claimDue(o.db, o.clock.now(), free, o.leaseMs, inFlight, o.perSubscription);
    if (claimed.length === 0) return 0;
    const loaded = await repo.loadForSending(o.db, claimed);
    for (const d of claimed) launch(d, loaded);
    return claimed.length;
  }

  async function runLoop() {
    while (active) {
      lastLoopAt = Date.now();
      let launched = 0;
      try {
        launched = await fill();
      } catch (err) {
        o.logger.error({ err }, 'webhook claim failed; retrying');
      }
      if (launched === 0 || running.size >= o.concurrency) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, o.pollMs);
          wake = () => {
            clearTimeout(timer);
            wake = null;
            resolve();
          };
        });
      }
    }
  }

  const worker: DeliveryWorker = {
    async runOnce() {
      const launched = await fill();
      await Promise.all([...running]);
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
      loop = runLoop();
    },
    async stop() {
      active = false;
      wake?.();
      await loop;
      await Promise.all([...running]);
    },
  };
  return worker;
}
