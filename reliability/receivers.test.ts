import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import { createWebhookSender } from '../src/delivery/http-sender.ts';
import { RETRY_DELAYS_SECONDS } from '../src/delivery/retry-schedule.ts';
import { createLogger } from '../src/logger.ts';
import { type Receiver, startReceiver } from '../src/testing/receiver.ts';
import { newCustomer, startTestApp, type TestApp, type TestCustomer } from '../src/testing/test-app.ts';
import { callFor, emitEvent } from '../src/testing/webhook.fixtures.ts';
import { createDeliveryWorker, type DeliveryWorker } from '../src/webhooks/delivery-worker.ts';
import { AUTO_DISABLE_AFTER } from '../src/webhooks/failure-streak.ts';
import {
  type BadReceiver,
  hangingReceiver,
  redirectingReceiver,
  refusingReceiver,
  silentSocketReceiver,
  slowBodyReceiver,
  statusReceiver,
  untrustedTlsReceiver,
} from './lib/bad-receivers.ts';
import { until } from './lib/client.ts';
import { figure, rememberSecret, saveLogs } from './lib/collector.ts';
import { SERVER_SECRET } from './lib/env.ts';

const SECTION = 'Receivers failing';

function worker(t: TestApp, o: { timeoutMs: number; concurrency: number; perSubscription: number }) {
  const sender = createWebhookSender({
    timeoutMs: o.timeoutMs,
    allowHttp: true,
    allowPrivateTargets: true,
    ca: t.cert,
  });
  const w: DeliveryWorker = createDeliveryWorker({
    db: t.db,
    clock: t.clock,
    sender,
    secretBox: createSecretBox(SERVER_SECRET),
    logger: createLogger('silent'),
    concurrency: o.concurrency,
    perSubscription: o.perSubscription,
    leaseMs: o.timeoutMs * 3,
    pollMs: 20,
    // No jitter: every retry lands exactly on the schedule.
    random: () => 0.5,
  });
  return {
    worker: w,
    async close() {
      await w.stop();
      await sender.close();
    },
  };
}

async function subscribe(t: TestApp, c: TestCustomer, url: string): Promise<string> {
  const res = await t.request('POST', '/api/v1/webhook-subscriptions', {
    key: c.key,
    body: { url, events: ['call.completed'] },
  });
  assert.equal(res.status, 201, res.text);
  rememberSecret('webhook_secret', res.body.secret);
  return res.body.id;
}

describe('receivers that fail in every way', () => {
  let t: TestApp;
  let healthy: Receiver;
  const bad: BadReceiver[] = [];

  before(async () => {
    t = await startTestApp({ serverSecret: SERVER_SECRET });
    healthy = await startReceiver();
  });
  after(async () => {
    for (const b of bad) {
      b.release();
      await b.close();
    }
    await healthy.close();
    saveLogs('receivers-testapp', t.logs);
    await t.close();
  });

  it('retries follow the schedule exactly and each subscription is disabled at exactly 10 failures', async () => {
    const modes = [
      await statusReceiver(500),
      await hangingReceiver(),
      await refusingReceiver(),
      await slowBodyReceiver(),
      await untrustedTlsReceiver(),
      await redirectingReceiver(`${healthy.url}/followed`),
    ];
    bad.push(...modes);
    const c = await newCustomer(t, { rateLimitPerMinute: 600, keyRateLimitPerMinute: 600 });
    rememberSecret('api_key', c.key);
    const subs = new Map<string, BadReceiver>();
    for (const m of modes) subs.set(await subscribe(t, c, m.url), m);
    const good = await subscribe(t, c, `${healthy.url}/good`);
    const { callId } = await callFor(t, c.customerId);
    const event = await emitEvent(t, c.customerId, callId);

    const w = worker(t, { timeoutMs: 1_000, concurrency: 20, perSubscription: 2 });
    const activeAfter: boolean[][] = [];
    try {
      for (let attempt = 1; attempt <= AUTO_DISABLE_AFTER; attempt++) {
        await w.worker.drain();
        const rows = await t.db
          .selectFrom('webhook_subscriptions')
          .select(['id', 'is_active', 'consecutive_failures'])
          .where('id', 'in', [...subs.keys()])
          .execute();
        activeAfter.push(rows.map((r) => r.is_active));
        for (const r of rows) assert.equal(r.consecutive_failures, attempt, `${subs.get(r.id)?.kind}`);
        const delay = RETRY_DELAYS_SECONDS[attempt - 1];
        assert.ok(delay !== undefined);
        t.clock.advance(delay * 1000);
      }
      // Long after: nothing more is tried for a disabled subscription.
      t.clock.advance(3 * 24 * 3600 * 1000);
      await w.worker.drain();
    } finally {
      await w.close();
    }

    const attempts = await t.db
      .selectFrom('webhook_attempts')
      .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
      .select([
        'webhook_attempts.subscription_id as sub',
        'webhook_attempts.attempted_at as at',
        'webhook_attempts.status_code as status',
        'webhook_attempts.error as error',
      ])
      .where('webhook_deliveries.event_id', '=', event.id)
      .orderBy('webhook_attempts.attempted_at')
      .execute();
    const expectedGaps = RETRY_DELAYS_SECONDS.slice(0, AUTO_DISABLE_AFTER - 1).map((s) => s * 1000);
    for (const [id, mode] of subs) {
      const mine = attempts.filter((a) => a.sub === id);
      assert.equal(mine.length, AUTO_DISABLE_AFTER, `${mode.kind}: exactly ${AUTO_DISABLE_AFTER} attempts`);
      const gaps = mine.slice(1).map((a, i) => a.at.getTime() - (mine[i]?.at.getTime() ?? 0));
      assert.deepEqual(gaps, expectedGaps, `${mode.kind}: retries on the schedule`);
      assert.ok(
        mine.every((a) => a.status === null || a.status < 200 || a.status >= 300),
        `${mode.kind}: every attempt failed`,
      );
      figure({
        section: SECTION,
        name: `${mode.kind}: attempts, then disabled`,
        value: `${mine.length} (${mine[0]?.error ?? mine[0]?.status})`,
        bound: `= ${AUTO_DISABLE_AFTER}`,
        ok: mine.length === AUTO_DISABLE_AFTER,
      });
    }
    // Active after each of the first nine failures, disabled by the tenth: exactly 10, not 9 nor 11.
    for (let i = 0; i < AUTO_DISABLE_AFTER - 1; i++)
      assert.ok(activeAfter[i]?.every(Boolean), `still active after ${i + 1} failures`);
    assert.ok(
      activeAfter[AUTO_DISABLE_AFTER - 1]?.every((a) => !a),
      'disabled by the 10th failure',
    );
    const disabled = await t.db
      .selectFrom('webhook_subscriptions')
      .select(['id', 'is_active', 'disabled_reason'])
      .where('customer_id', '=', c.customerId)
      .execute();
    for (const s of disabled) {
      if (s.id === good) assert.equal(s.is_active, true, 'the healthy subscription stays active');
      else assert.equal(s.disabled_reason, '10 consecutive delivery failures');
    }
    // The redirect points at the healthy receiver too: had it been followed, the event would be there twice.
    const copies = healthy.received.filter((r) => String(r.headers['x-svc-event-id']) === event.id).length;
    assert.equal(
      copies,
      1,
      'the healthy subscription got its delivery once, and the redirect was not followed',
    );
    figure({
      section: SECTION,
      name: 'retry gaps (s)',
      value: RETRY_DELAYS_SECONDS.slice(0, AUTO_DISABLE_AFTER - 1).join(', '),
      ok: true,
    });
  });

  it('a receiver that hangs holds only its own slots: the other subscriptions are not delayed', async () => {
    const hanging = [await hangingReceiver(), await slowBodyReceiver(), await silentSocketReceiver()];
    bad.push(...hanging);
    // The hanging receivers' deliveries are due first (another customer, a millisecond earlier), so a
    // worker that let one receiver take every slot would never reach the healthy one.
    const hc = await newCustomer(t, { rateLimitPerMinute: 600, keyRateLimitPerMinute: 600 });
    const gc = await newCustomer(t, { rateLimitPerMinute: 600, keyRateLimitPerMinute: 600 });
    rememberSecret('api_key', hc.key);
    rememberSecret('api_key', gc.key);
    for (const r of hanging) await subscribe(t, hc, r.url);
    await subscribe(t, gc, `${healthy.url}/isolated`);
    const slowCall = await callFor(t, hc.customerId, 2);
    const fastCall = await callFor(t, gc.customerId, 3);
    const events = 30;
    for (let i = 0; i < events; i++) await emitEvent(t, hc.customerId, slowCall.callId);
    t.clock.advance(1);
    const ids = new Set<string>();
    for (let i = 0; i < events; i++) ids.add((await emitEvent(t, gc.customerId, fastCall.callId)).id);
    const mine = () => healthy.received.filter((r) => ids.has(String(r.headers['x-svc-event-id']))).length;

    // The hanging receivers never answer while we wait: with a sender timeout far longer than the wait,
    // the healthy subscription can only finish if the hanging ones cannot take every slot.
    const w = worker(t, { timeoutMs: 60_000, concurrency: 10, perSubscription: 2 });
    w.worker.start();
    try {
      const done = await until(() => mine() >= events, 60);
      const heldAtTheEnd = hanging.reduce((n, h) => n + h.hits(), 0);
      figure({
        section: SECTION,
        name: 'healthy deliveries while 3 receivers hang',
        value: `${mine()} of ${events} (hanging receivers hold ${heldAtTheEnd} requests)`,
        bound: `= ${events}`,
        ok: done,
      });
      assert.ok(done, `healthy deliveries ${mine()} of ${events}`);
      assert.ok(heldAtTheEnd > 0, 'the hanging receivers were being tried at the same time');
      assert.ok(
        hanging.every((h) => h.hits() <= 2),
        `each holds at most its per-subscription share of slots: ${hanging.map((h) => `${h.kind} ${h.hits()}`).join(', ')}`,
      );
    } finally {
      for (const h of hanging) h.release();
      await w.close();
    }
  });
});
