import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Receiver, startReceiver } from '../src/testing/receiver.ts';
import { newCustomer, startTestApp, type TestApp } from '../src/testing/test-app.ts';
import { testDatabaseUrlForChild } from '../src/testing/test-database.ts';
import { callFor } from '../src/testing/webhook.fixtures.ts';
import { recordEvent } from '../src/webhooks/events.repository.ts';
import { until } from './lib/client.ts';
import { figure, rememberSecret, saveLogs } from './lib/collector.ts';
import { needsPostgres, SERVER_SECRET } from './lib/env.ts';
import { type ServiceProcess, startService } from './lib/service-process.ts';

const SECTION = 'Crash: worker SIGKILLed during a burst';
const CUSTOMERS = 10;
const EVENTS = 10_000;
const RECEIVERS = 2;
const CONCURRENCY = 100;
/** Kill the worker when this share of all deliveries has arrived (during the burst and after it). */
const KILL_AT = [0.05, 0.3, 0.6];
const DRAIN_BOUND_SECONDS = 240;
/** Events recorded per transaction by each writer (all about one call, so writers never deadlock). */
const PER_TRANSACTION = 50;

describe('a worker killed with SIGKILL again and again during a burst', { skip: needsPostgres }, () => {
  let t: TestApp;
  const receivers: Receiver[] = [];
  const workers: ServiceProcess[] = [];

  before(async () => {
    t = await startTestApp({ serverSecret: SERVER_SECRET });
    for (let i = 0; i < RECEIVERS; i++) receivers.push(await startReceiver());
  });
  after(async () => {
    for (const w of workers) await w.kill('SIGKILL');
    for (const r of receivers) await r.close();
    saveLogs('crash-testapp', t?.logs ?? []);
    await t?.close();
  });

  const startWorker = async (n: number) => {
    const url = testDatabaseUrlForChild();
    assert.ok(url);
    const w = await startService({
      command: 'worker',
      name: `crash-worker-${n}`,
      env: {
        DATABASE_URL: url,
        SERVER_SECRET,
        // Short enough that a killed worker's claims come back soon (lease = 3 × timeout), long enough
        // that a receiver slowed by a busy machine is not taken for a failing one.
        WEBHOOK_TIMEOUT_MS: '5000',
        WORKER_CONCURRENCY: String(CONCURRENCY),
        DATABASE_POOL_SIZE: '20',
      },
    });
    workers.push(w);
    return w;
  };

  it(`every one of ${EVENTS} events reaches every subscribed receiver at least once`, async () => {
    // Customers, each subscribed with every receiver.
    const customers: { customerId: string; callId: string }[] = [];
    for (let c = 0; c < CUSTOMERS; c++) {
      const customer = await newCustomer(t, { rateLimitPerMinute: 600, keyRateLimitPerMinute: 600 });
      rememberSecret('api_key', customer.key);
      for (const r of receivers) {
        const res = await t.request('POST', '/api/v1/webhook-subscriptions', {
          key: customer.key,
          body: { url: `${r.url}/${customer.customerId}`, events: ['call.completed'] },
        });
        assert.equal(res.status, 201, res.text);
        rememberSecret('webhook_secret', res.body.secret);
      }
      const { callId } = await callFor(t, customer.customerId, c + 1);
      customers.push({ customerId: customer.customerId, callId });
    }
    const expected = EVENTS * RECEIVERS;
    const received = () => receivers.reduce((n, r) => n + r.received.length, 0);

    let worker = await startWorker(0);
    const started = Date.now();

    // The burst: 10,000 events recorded as the lifecycle does (recordEvent in a transaction, which writes
    // their deliveries), by four writers at once, while the worker delivers and is killed.
    const ids: string[] = [];
    let next = 0;
    const writers = Array.from({ length: 4 }, async () => {
      while (next < EVENTS) {
        const first = next;
        next += PER_TRANSACTION;
        const c = customers[(first / PER_TRANSACTION) % CUSTOMERS];
        assert.ok(c);
        const rows = await t.db.transaction().execute(async (tx) => {
          const out: string[] = [];
          for (let i = first; i < Math.min(first + PER_TRANSACTION, EVENTS); i++) {
            const row = await recordEvent(tx, {
              customerId: c.customerId,
              type: 'call.completed',
              callId: c.callId,
              data: { call_id: c.callId, status: 'completed' },
              occurredAt: t.clock.now(),
            });
            out.push(row.id);
          }
          return out;
        });
        ids.push(...rows);
      }
    });
    const burst = Promise.all(writers).then(() => Date.now());

    const kills: { at: number; receivedAtKill: number }[] = [];
    for (const share of KILL_AT) {
      const reached = await until(() => received() >= share * expected, 120, 10);
      assert.ok(reached, `deliveries stalled below ${share * 100}%: ${received()} of ${expected}`);
      await worker.kill('SIGKILL');
      kills.push({ at: Date.now() - started, receivedAtKill: received() });
      assert.equal(worker.exit()?.signal, 'SIGKILL');
      worker = await startWorker(kills.length);
    }
    const burstEnded = (await burst) - started;
    assert.equal(ids.length, EVENTS);

    const pairs = () => {
      const unique = new Set<string>();
      for (const [i, r] of receivers.entries())
        for (const req of r.received) unique.add(`${i}:${String(req.headers['x-svc-event-id'])}`);
      return unique;
    };
    await until(() => pairs().size >= expected, DRAIN_BOUND_SECONDS, 200);
    const drained = Date.now() - started;

    const unique = pairs();
    const wanted = new Set(ids.flatMap((id) => receivers.map((_, i) => `${i}:${id}`)));
    const lost = [...wanted].filter((k) => !unique.has(k)).length;
    // A killed worker's last sends arrived but were never recorded: those rows come back when their
    // lease (3 × timeout) runs out, are sent again and recorded then.
    const notDelivered = async () =>
      Number(
        (
          await t.db
            .selectFrom('webhook_deliveries')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('event_id', 'in', ids.slice(0, 1000))
            .where('status', '!=', 'delivered')
            .executeTakeFirst()
        )?.n ?? 0,
      );
    await until(async () => (await notDelivered()) === 0, 60, 250);
    const duplicates = received() - unique.size;
    const pending = { n: await notDelivered() };

    figure({ section: SECTION, name: 'events in the burst', value: EVENTS });
    figure({ section: SECTION, name: 'subscribed receivers per event', value: RECEIVERS });
    figure({ section: SECTION, name: 'deliveries expected', value: expected });
    figure({ section: SECTION, name: 'SIGKILLs', value: kills.length, bound: '≥ 3', ok: kills.length >= 3 });
    figure({
      section: SECTION,
      name: 'killed at (deliveries received)',
      value: kills.map((k) => k.receivedAtKill).join(', '),
    });
    figure({ section: SECTION, name: 'burst written in', value: burstEnded, unit: 'ms' });
    figure({ section: SECTION, name: 'all delivered after', value: drained, unit: 'ms' });
    figure({ section: SECTION, name: 'lost', value: lost, bound: '= 0', ok: lost === 0 });
    figure({ section: SECTION, name: 'duplicates (at-least-once)', value: duplicates });
    figure({
      section: SECTION,
      name: 'throughput incl. restarts',
      value: Math.round((received() / drained) * 1000),
      unit: 'deliveries/s',
    });

    assert.equal(lost, 0, `lost ${lost} of ${expected}`);
    assert.equal(Number(pending?.n ?? 0), 0, 'every delivery is marked delivered');
    // Only attempts sent and not yet recorded at a kill can be repeated: at most the worker's concurrency in
    // its slots, as many again answered and not yet written, and as many out past SLOW_ATTEMPT_MS, so at most three
    // times the worker's concurrency per kill.
    assert.ok(duplicates <= kills.length * 3 * CONCURRENCY, `duplicates ${duplicates}`);
  });
});
