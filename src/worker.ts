import { createWebhookSender } from './delivery/index.ts';
import { startLoop } from './loop.ts';
import { purgeExpired, startCallRetention, startOwnVacuum } from './maintenance/index.ts';
import type { ReadinessProbe } from './ops/index.ts';
import { createBacklogWatch } from './ops/index.ts';
import { createCallbackDelivery } from './outbound/index.ts';
import type { Runtime } from './runtime.ts';
import {
  createDeliveryWorker,
  createTranscriptReadyProcessor,
  type DeliveryWorker,
  outboxStats,
} from './webhooks/index.ts';

/** Failed authentication records are kept for investigation this long. */
const AUTH_FAILURE_RETENTION_DAYS = 30;

/**
 * Everything a worker process does, as configured: webhook deliveries (continuous loop), callback
 * notifications, call.transcript.ready checks, retention (calls too), and where autovacuum does not run (PGlite, or
 * a PostgreSQL server with it off) the vacuums it would run. In the API process by default, or alone with the
 * `worker` command.
 */
export function createConfiguredWorker(runtime: Runtime): {
  worker: DeliveryWorker;
  probe: ReadinessProbe;
  close(): Promise<void>;
} {
  const { config, logger } = runtime;
  const db = runtime.database.db;
  const sender = createWebhookSender({
    timeoutMs: config.webhookTimeoutMs,
    allowHttp: config.webhookAllowHttp,
    allowPrivateTargets: config.webhookAllowPrivateTargets,
    logger,
  });
  const worker = createDeliveryWorker({
    db,
    clock: runtime.clock,
    sender,
    secretBox: runtime.secretBox,
    logger,
    concurrency: config.workerConcurrency,
    perSubscription: Math.max(1, Math.ceil(config.workerConcurrency / 10)),
    leaseMs: config.webhookTimeoutMs * 3,
    pollMs: 200,
    notifications: runtime.database.notifications,
    onAttempt: (outcome) => runtime.metrics.observeWebhookAttempt(outcome),
  });
  const callbacks = createCallbackDelivery({
    db,
    clock: runtime.clock,
    sender,
    secrets: runtime.services.callbackSecrets,
    logger,
    leaseMs: config.webhookTimeoutMs * 3,
  });
  const transcriptReady = createTranscriptReadyProcessor({
    db,
    clock: runtime.clock,
    transcripts: runtime.services.transcripts,
    logger,
  });
  const backlog = createBacklogWatch({
    read: () => outboxStats(db, runtime.clock),
    thresholdSeconds: config.webhookBacklogWarnSeconds,
    logger,
  });
  const loop = (name: string, intervalMs: number, task: () => Promise<unknown>, runAtStart = false) =>
    startLoop({ name, intervalMs, runAtStart, logger }, task);
  const loops = [
    loop('callback delivery', 500, () => callbacks.runOnce()),
    loop('transcript check', 1_000, () => transcriptReady.runOnce()),
    // At start too: a worker started into a backlog says so at once, not 30 s later.
    loop('webhook outbox check', 30_000, () => backlog.check(), true),
    // Retention is idempotent, so several workers may run it.
    loop('retention purge', 3_600_000, () =>
      purgeExpired(db, runtime.clock.now(), {
        webhookLogDays: config.webhookLogRetentionDays,
        authFailureDays: AUTH_FAILURE_RETENTION_DAYS,
      }),
    ),
    // Calls past each customer's retention, in small batches (docs/call-data.md); idempotent like the purge above.
    startCallRetention({
      customers: runtime.services.customers,
      removal: runtime.services.callRemoval,
      clock: runtime.clock,
      logger,
    }),
    // On PGlite, and on a PostgreSQL server whose autovacuum is off: the vacuums autovacuum would run.
    ...startOwnVacuum(db, runtime.database.kind, logger),
  ];
  const probe: ReadinessProbe = {
    name: 'worker',
    async check() {
      const { running, lastLoopAt } = worker.health();
      if (!running) throw new Error('not running');
      if (Date.now() - lastLoopAt > 30_000) throw new Error('delivery loop stalled');
    },
    warning: () => backlog.warning(),
  };
  return {
    worker,
    probe,
    async close() {
      await Promise.all(loops.map((l) => l.stop()));
      await worker.stop();
      await sender.close();
    },
  };
}

/** Outbox depth and the age of the oldest due delivery, read from the database at each scrape. */
export function registerOutboxGauges(runtime: Runtime): void {
  const read = () => outboxStats(runtime.database.db, runtime.clock);
  runtime.metrics.gauge(
    'webhook_outbox_due',
    'Deliveries due now and not yet sent',
    async () => (await read()).due,
  );
  runtime.metrics.gauge(
    'webhook_outbox_oldest_due_seconds',
    'How long the oldest due delivery has waited',
    async () => (await read()).oldestDueSeconds,
  );
}
