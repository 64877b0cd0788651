import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SendResult, WebhookSender } from '../delivery/http-sender.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { callFor, subscriptionRow, workerOver } from '../testing/webhook.fixtures.ts';
import { recordEvent } from './events.repository.ts';
import { AUTO_DISABLE_AFTER, FAILURE_FOLD_MS } from './failure-streak.ts';

const SERVER_SECRET = 'failure-rule-test-secret-0123456789abcdef';

describe('the failure rule through the worker, on the test clock', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ serverSecret: SERVER_SECRET });
  });
  after(async () => {
    await t.close();
  });

  /** A worker whose receiver answers `status(now)` for this test's subscription, and counts what it sent. */
  function workerAnswering(path: string, status: (now: number) => number) {
    let sent = 0;
    const sender: WebhookSender = {
      async send(url): Promise<SendResult> {
        const code = url.endsWith(path) ? status(t.clock.now().getTime()) : 200;
        if (url.endsWith(path)) sent += 1;
        const ok = code < 300;
        return { ok, statusCode: code, error: ok ? null : `HTTP ${code}`, latencyMs: 1 };
      },
      async close() {},
    };
    const worker = workerOver(t, SERVER_SECRET, sender, {
      concurrency: 50,
      perSubscription: 50,
      leaseMs: 30_000,
      pollMs: 20,
      random: () => 0.5,
    });
    return { worker, sent: () => sent };
  }

  async function subscribed(path: string) {
    const c = await newCustomer(t);
    const res = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: c.key,
      body: { url: `http://127.0.0.1:9/${path}`, events: ['call.completed'] },
    });
    assert.equal(res.status, 201, res.text);
    const { callId } = await callFor(t, c.customerId);
    /** Records `n` events in one transaction, as a burst commits them. */
    const emit = (n: number) =>
      t.db.transaction().execute(async (tx) => {
        for (let i = 0; i < n; i++)
          await recordEvent(tx, {
            customerId: c.customerId,
            type: 'call.completed',
            callId,
            data: { call_id: callId },
            occurredAt: t.clock.now(),
          });
      });
    return { id: res.body.id as string, emit };
  }

  it('a receiver answering 500 for 2 s of a 1,000 events/s burst counts one failure and stays active', async () => {
    const { id, emit } = await subscribed('blip');
    const start = t.clock.now().getTime();
    const { worker } = workerAnswering('/blip', (now) =>
      now - start >= 1_000 && now - start < 3_000 ? 500 : 200,
    );
    await worker.drain();
    let worst = 0;
    // 4 s at 1,000 events/s: 50 events every 50 ms, each batch sent before the clock moves on.
    for (let ms = 0; ms < 4_000; ms += 50) {
      await emit(50);
      await worker.runOnce();
      const row = await subscriptionRow(t, id);
      assert.equal(row.is_active, true, `active at ${ms} ms`);
      worst = Math.max(worst, row.consecutive_failures);
      t.clock.advance(50);
    }
    assert.equal(worst, 1);
    t.clock.advance(15_000);
    await worker.drain();
    const row = await subscriptionRow(t, id);
    assert.deepEqual([row.is_active, row.consecutive_failures], [true, 0]);
    const pending = await t.db
      .selectFrom('webhook_deliveries')
      .select('status')
      .where('subscription_id', '=', id)
      .where('status', '<>', 'delivered')
      .execute();
    assert.equal(pending.length, 0, 'the 2,000 that failed were retried and delivered');
  });

  it('a receiver down for good is disabled at exactly the tenth counted failure, and nothing goes out after', async () => {
    const { id, emit } = await subscribed('down');
    const { worker, sent } = workerAnswering('/down', () => 500);
    const start = t.clock.now().getTime();
    let disabledAfter = -1;
    let sentAtDisable = 0;
    // An event every second for a minute.
    for (let s = 0; s < 60; s++) {
      await emit(1);
      await worker.runOnce();
      const row = await subscriptionRow(t, id);
      if (row.is_active) assert.ok(row.consecutive_failures < AUTO_DISABLE_AFTER);
      else if (disabledAfter < 0) {
        disabledAfter = s;
        sentAtDisable = sent();
        assert.equal(row.consecutive_failures, AUTO_DISABLE_AFTER);
        assert.equal(row.disabled_at?.getTime(), t.clock.now().getTime());
      }
      t.clock.advance(1_000);
    }
    // Counted at 0 s, then at the first attempt starting 5 s after each counted one ended: 5 s, 10 s … 45 s.
    assert.equal(disabledAfter, ((AUTO_DISABLE_AFTER - 1) * FAILURE_FOLD_MS) / 1_000);
    assert.equal(sent(), sentAtDisable, 'no attempt after the one that disabled it');
    assert.ok(t.clock.now().getTime() - start >= 60_000);
    const row = await subscriptionRow(t, id);
    assert.deepEqual([row.is_active, row.consecutive_failures], [false, AUTO_DISABLE_AFTER]);
  });
});
