import { purgeExpired } from '../maintenance/retention.ts';
import type { ReadinessProbe } from '../ops/ops.routes.ts';
import { outboxStats } from '../ops/outbox-stats.ts';
import type { Runtime } from '../runtime.ts';
import { createDeliveryWorker, type DeliveryWorker } from './delivery-worker.ts';
import { createWebhookSender } from './http-sender.ts';

/** Failed authentication records are kept for investigation this long. */
const AUTH_FAILURE_RETENTION_DAYS = 30;

/** The delivery worker as configured: in the API process by default, or alone with the `worker` command. */
export function createConfiguredWorker(runtime: Runtime): {
  worker: DeliveryWorker;
  probe: ReadinessProbe;
  close(): Promise<void>;
} {
  const { config } = runtime;
  const sender = createWebhookSender({
    timeoutMs: config.webhookTimeoutMs,
    allowHttp: config.webhookAllowHttp,
    allowPrivateTargets: config.webhookAllowPrivateTargets,
  });
  const worker = createDeliveryWorker({
    db: runtime.database.db,
    clock: runtime.clock,
    sender,
    secretBox: runtime.secretBox,
    logger: runtime.logger,
    concurrency: config.workerConcurrency,
    perSubscription: Math.max(1, Math.ceil(config.workerConcurrency / 10)),
    leaseMs: config.webhookTimeoutMs * 3,
    pollMs: 200,
    onAttempt: (outcome) => runtime.metrics.observeWebhookAttempt(outcome),
  });
  // Retention runs beside delivery: hourly, and harmless when several workers do it.
  const purge = () =>
    purgeExpired(runtime.database.db, runtime.clock.now(), {
      webhookLogDays: config.webhookLogRetentionDays,
      authFailureDays: AUTH_FAILURE_RETENTION_DAYS,
    }).catch((err: unknown) => runtime.logger.warn({ err }, 'retention purge failed'));
  const timer = setInterval(purge, 3_600_000);
  timer.unref();
  void purge();
  const probe: ReadinessProbe = {
    name: 'worker',
    async check() {
      const { running, lastLoopAt } = worker.health();
      if (!running) throw new Error('not running');
      if (Date.now() - lastLoopAt > 30_000) throw new Error('delivery loop stalled');
    },
  };
  return {
    worker,
    probe,
    async close() {
      clearInterval(timer);
      await worker.stop();
      await sender.close();
    },
  };
}

/** Outbox depth and the age of the oldest due delivery, read from the database at each scrape. */
export function registerOutboxGauges(runtime: Runtime): void {
  const read = () => outboxStats(runtime.database.db, runtime.clock);
  runtime.metrics.gauge('webhook_outbox_due', 'Deliveries due now and not yet sent', async () => (await read()).due);
  runtime.metrics.gauge(
    'webhook_outbox_oldest_due_seconds',
    'How long the oldest due delivery has waited',
    async () => (await read()).oldestDueSeconds,
  );
}
