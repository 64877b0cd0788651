import assert from 'node:assert/strict';
import { after, before, describe, it, mock } from 'node:test';
import type { Logger } from 'pino';
import { type Clock, ManualClock } from './clock.ts';
import { type Config, loadConfig } from './config.ts';
import { createSecretBox } from './crypto/secret-box.ts';
import { type DatabaseHandle, openDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { createLogger } from './logger.ts';
import { createMetrics } from './ops/metrics.ts';
import type { Runtime } from './runtime.ts';
import { startTestApp, type TestApp } from './testing/test-app.ts';
import { testDatabase } from './testing/test-database.ts';
import { vacuumCounts, vacuumCountsOnce } from './testing/vacuum-counts.ts';
import { subscribedEvent } from './testing/webhook.fixtures.ts';
import { createConfiguredWorker } from './worker.ts';

const SERVER_SECRET = 'worker-entry-test-secret-0123456789abcdef';

/** A runtime for `createConfiguredWorker`: the test app's services, with this config, database, clock and logger. */
const runtimeOf = (
  t: TestApp,
  o: { config: Config; database: DatabaseHandle; clock: Clock; logger: Logger },
): Runtime =>
  ({
    ...o,
    services: t.services,
    secretBox: createSecretBox(SERVER_SECRET),
    metrics: createMetrics(),
  }) as unknown as Runtime;

describe('the worker entry (src/worker.ts) as configured', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ serverSecret: SERVER_SECRET });
  });
  after(async () => {
    await t.close();
  });

  it('reports an outbox behind by more than WEBHOOK_BACKLOG_WARN_SECONDS at start: a log line and a readiness warning', async () => {
    // The test database is shared: the worker reads it at a clock in 2001, where only this test's delivery is due.
    const T0 = new Date('2001-01-01T00:00:00Z');
    const { event } = await subscribedEvent(t, 'http://127.0.0.1:9/backlog');
    // Due at T0 and out with another worker for now, so this one cannot take it.
    await t.db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: T0, leased_until: new Date('2100-01-01') })
      .where('event_id', '=', event.id)
      .execute();

    const lines: { level: number; msg: string; due?: number; oldest_due_seconds?: number }[] = [];
    const logger = createLogger('info', { write: (line: string) => lines.push(JSON.parse(line)) });
    const database = await testDatabase();
    const runtime = runtimeOf(t, {
      config: loadConfig({ WEBHOOK_BACKLOG_WARN_SECONDS: '120' }),
      database,
      clock: new ManualClock(new Date(T0.getTime() + 121_000)),
      logger,
    });
    const { probe, close } = createConfiguredWorker(runtime);
    try {
      const deadline = Date.now() + 20_000;
      while (probe.warning?.() == null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.equal(
        probe.warning?.(),
        'webhook outbox behind: 1 deliveries due, the oldest for 121 s (threshold 120 s)',
      );
      const warned = lines.find((l) => l.msg.startsWith('webhook outbox is behind'));
      assert.equal(warned?.level, 40);
      assert.deepEqual([warned?.due, warned?.oldest_due_seconds], [1, 121]);
    } finally {
      await close();
    }
  });

  it('a refused target: the delivery log says what kind of address it resolved to, the operator log which one', async () => {
    // As above: a clock in 2001, where only this test's delivery is due for this worker.
    const T0 = new Date('2001-01-02T00:00:00Z');
    // The test app allows private targets at registration; the worker runs under the production defaults.
    const { customer, callId, event } = await subscribedEvent(t, 'https://10.1.2.3:9/hooks');
    await t.db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: T0 })
      .where('event_id', '=', event.id)
      .execute();

    const lines: { msg: string; host?: string; address?: string }[] = [];
    const runtime = runtimeOf(t, {
      config: loadConfig({}),
      database: await testDatabase(),
      clock: new ManualClock(new Date(T0.getTime() + 1_000)),
      logger: createLogger('info', { write: (line: string) => lines.push(JSON.parse(line)) }),
    });
    const { worker, close } = createConfiguredWorker(runtime);
    worker.start();
    try {
      const deadline = Date.now() + 20_000;
      const attempted = () =>
        t.db
          .selectFrom('webhook_attempts')
          .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
          .select('webhook_attempts.error')
          .where('webhook_deliveries.event_id', '=', event.id)
          .executeTakeFirst();
      while (!(await attempted()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await close();
    }
    const res = await t.request('GET', `/api/v1/webhook-events?call_id=${callId}`, { key: customer.key });
    assert.equal(res.status, 200, res.text);
    const [attempt] = res.body.data[0].deliveries[0].attempt_log;
    assert.equal(
      attempt.error,
      "the target's host resolved to a private or reserved address, which is not allowed for webhooks",
    );
    const refused = lines.find((l) => l.msg.startsWith('webhook target refused'));
    assert.deepEqual([refused?.host, refused?.address], ['10.1.2.3', '10.1.2.3']);
  });

  it('on PGlite, which has no autovacuum, vacuums (src/maintenance/own-vacuum.ts); on PostgreSQL whose autovacuum runs, it is left to it', async () => {
    const pglite = await openDatabase({});
    await migrateToLatest(pglite.db);
    const runtimeOn = (kind: 'pglite' | 'postgres') =>
      runtimeOf(t, {
        config: loadConfig({}),
        database: { ...pglite, kind },
        clock: new ManualClock(new Date()),
        logger: createLogger('silent'),
      });
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      // PGlite standing in for a server reports `autovacuum = on`, as a server that runs it does.
      const onPostgres = createConfiguredWorker(runtimeOn('postgres'));
      mock.timers.tick(60_000);
      await onPostgres.close();
      assert.equal((await vacuumCounts(pglite.db)).webhook_deliveries, 0);

      const onPglite = createConfiguredWorker(runtimeOn('pglite'));
      mock.timers.tick(60_000);
      const counts = await vacuumCountsOnce(pglite.db, (c) => c.webhook_deliveries === 1);
      await onPglite.close();
      assert.equal(counts.webhook_deliveries, 1);
    } finally {
      mock.timers.reset();
      await pglite.close();
    }
  });
});
