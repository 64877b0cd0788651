import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Notifications } from '../db/notifications.ts';
import type { SendResult, WebhookSender } from '../delivery/http-sender.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { testDatabase } from '../testing/test-database.ts';
import { callFor, emitEvent, workerOver } from '../testing/webhook.fixtures.ts';

const SERVER_SECRET = 'wake-test-secret-0123456789abcdef';
/** Longer than any test may take: a delivery that goes out came from a wake-up, not a poll. */
const NEVER_MS = 3_600_000;

describe('a committed outbox wakes the delivery worker; polling is only the fallback', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ serverSecret: SERVER_SECRET });
  });
  after(async () => {
    await t.close();
  });

  /** A worker polling hourly whose sender resolves `sent` at the first POST to `path`. */
  function wakeableWorker(path: string, notifications: Notifications) {
    let resolve: (url: string) => void = () => {};
    const sent = new Promise<string>((r) => {
      resolve = r;
    });
    const sender: WebhookSender = {
      async send(url): Promise<SendResult> {
        if (url.endsWith(path)) resolve(url);
        return { ok: true, statusCode: 200, error: null, latencyMs: 1 };
      },
      async close() {},
    };
    const worker = workerOver(t, SERVER_SECRET, sender, {
      concurrency: 20,
      perSubscription: 5,
      leaseMs: 30_000,
      pollMs: NEVER_MS,
      notifications,
    });
    return { worker, sent };
  }

  async function subscribed(path: string) {
    const c = await newCustomer(t);
    const res = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: c.key,
      body: { url: `http://127.0.0.1:9/${path}`, events: ['call.completed'] },
    });
    assert.equal(res.status, 201, res.text);
    const { callId } = await callFor(t, c.customerId);
    return () => emitEvent(t, c.customerId, callId);
  }

  it('an event committed while the worker idles is sent without waiting for the poll', {
    timeout: 20_000,
  }, async () => {
    const emit = await subscribed('woken');
    const { notifications } = await testDatabase();
    const { worker, sent } = wakeableWorker('/woken', notifications);
    worker.start();
    // Whatever was due is sent and every claim has come back empty: the next poll is an hour away.
    await worker.runOnce();
    await emit();
    assert.match(await sent, /\/woken$/);
    await worker.stop();
  });

  it('after a gap in the notifications the worker looks at once', { timeout: 20_000 }, async () => {
    const emit = await subscribed('gap');
    let gap: (() => void) | undefined;
    const silent: Notifications = {
      listen(_channel, _handler, onGap) {
        gap = onGap;
        return () => {};
      },
      connected: () => false,
      close: async () => {},
    };
    const { worker, sent } = wakeableWorker('/gap', silent);
    worker.start();
    await worker.runOnce();
    await emit();
    assert.ok(gap, 'the worker listens with a gap handler');
    gap();
    assert.match(await sent, /\/gap$/);
    await worker.stop();
  });
});
