import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createWebhookSender } from '../delivery/http-sender.ts';
import { RETRY_DELAYS_SECONDS } from '../delivery/retry-schedule.ts';
import { type Receiver, startReceiver } from '../testing/receiver.ts';
import { newCustomer, startTestApp, type TestApp, testCertificate } from '../testing/test-app.ts';
import { callFor, emitEvent, subscriptionRow, testWorker } from '../testing/webhook.fixtures.ts';
import type { DeliveryWorker } from './delivery-worker.ts';
import { FAILURE_FOLD_MS } from './failure-streak.ts';

const SERVER_SECRET = 'delivery-test-secret-0123456789abcdef';

/** An independent verifier, written from spec 6.2 alone. */
function verify(secret: string, headers: Record<string, unknown>, body: string): boolean {
  const ts = String(headers['x-svc-timestamp']);
  const expected = createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex');
  return /^\d{10}$/.test(ts) && headers['x-svc-signature-256'] === expected;
}

describe('webhook delivery', () => {
  let t: TestApp;
  let worker: DeliveryWorker;
  let closeWorker: () => Promise<void>;
  let http: Receiver;
  let tls: Receiver;

  before(async () => {
    t = await startTestApp({ serverSecret: SERVER_SECRET });
    ({ worker, close: closeWorker } = testWorker(t, SERVER_SECRET, { timeoutMs: 2_000 }));
    http = await startReceiver();
    // The receiver presents the same self-signed certificate the test app uses, which the sender trusts.
    tls = await startReceiver(await testCertificate());
  });
  after(async () => {
    await closeWorker();
    await http.close();
    await tls.close();
    await t.close();
  });

  async function subscribe(key: string, url: string, events = ['call.completed', 'call.insight.received']) {
    const res = await t.request('POST', '/api/v1/webhook-subscriptions', { key, body: { url, events } });
    assert.equal(res.status, 201, res.text);
    return res.body as { id: string; secret: string };
  }

  it('delivers a signed envelope, byte for byte the body signed, with the spec headers', async () => {
    const c = await newCustomer(t);
    const sub = await subscribe(c.key, `${http.url}/signed`);
    const { callId } = await callFor(t, c.customerId);
    const event = await emitEvent(t, c.customerId, callId, 'call.completed', {
      call_id: callId,
      direction: 'incoming',
      cost: 0.09,
    });
    const before = http.received.length;
    await worker.drain();
    const got = http.received.slice(before).filter((r) => r.body.includes(callId));
    assert.equal(got.length, 1);
    const [req] = got;
    assert.ok(req);
    assert.ok(verify(sub.secret, req.headers, req.body), 'signature verifies');
    assert.equal(req.headers['x-svc-event'], 'call.completed');
    assert.equal(req.headers['content-type'], 'application/json');
    assert.equal(req.headers['x-svc-timestamp'], String(Math.floor(t.clock.now().getTime() / 1000)));
    const body = JSON.parse(req.body);
    assert.deepEqual(body, {
      id: event.id,
      event: 'call.completed',
      timestamp: event.occurred_at.toISOString(),
      sequence: 1,
      livemode: true,
      data: { call_id: callId, direction: 'incoming', cost: 0.09 },
    });
    assert.equal(verify(sub.secret, req.headers, `${req.body} `), false, 'any change breaks it');
  });

  it('delivers over HTTPS too, and only to subscriptions of that event type and customer', async () => {
    const a = await newCustomer(t);
    const b = await newCustomer(t);
    await subscribe(a.key, `${tls.url}/a`, ['call.completed']);
    await subscribe(a.key, `${tls.url}/a-insight`, ['call.insight.received']);
    await subscribe(b.key, `${tls.url}/b`, ['call.completed']);
    const { callId } = await callFor(t, a.customerId);
    const before = tls.received.length;
    await emitEvent(t, a.customerId, callId);
    await worker.drain();
    const got = tls.received.slice(before);
    assert.equal(got.length, 1);
    assert.equal(got[0]?.headers['x-svc-event'], 'call.completed');
  });

  it('numbers the events of one call in order', async () => {
    const c = await newCustomer(t);
    await subscribe(c.key, `${http.url}/seq`);
    const { callId } = await callFor(t, c.customerId);
    const before = http.received.length;
    await emitEvent(t, c.customerId, callId, 'call.completed');
    await emitEvent(t, c.customerId, callId, 'call.insight.received');
    await worker.drain();
    const seqs = http.received
      .slice(before)
      .map((r) => JSON.parse(r.body).sequence)
      .sort();
    assert.deepEqual(seqs, [1, 2]);
  });

  it('retries failures on the documented schedule, then succeeds and resets the failure count', async () => {
    const c = await newCustomer(t);
    const sub = await subscribe(c.key, `${http.url}/flaky`);
    const { callId } = await callFor(t, c.customerId);
    let calls = 0;
    http.reply = (req) => (req.body.includes(callId) && ++calls <= 3 ? { status: 500 } : { status: 200 });
    await emitEvent(t, c.customerId, callId);
    // Other tests' failing deliveries share this database, so count this subscription's attempts only.
    const attemptsOf = async () =>
      Number(
        (
          await t.db
            .selectFrom('webhook_attempts')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('subscription_id', '=', sub.id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    await worker.drain();
    assert.equal(await attemptsOf(), 1);
    for (const [i, delay] of RETRY_DELAYS_SECONDS.slice(0, 3).entries()) {
      await worker.drain();
      t.clock.advance(delay * 1000 - 1);
      await worker.drain();
      assert.equal(await attemptsOf(), i + 1, `not due 1 ms before ${delay}s`);
      t.clock.advance(1);
      await worker.drain();
      assert.equal(await attemptsOf(), i + 2, `due at ${delay}s`);
    }
    http.reply = () => ({ status: 200 });
    const row = await subscriptionRow(t, sub.id);
    assert.equal(row.consecutive_failures, 0);
    const attempts = await t.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('subscription_id', '=', sub.id)
      .orderBy('attempted_at')
      .execute();
    assert.deepEqual(
      attempts.map((a) => a.status_code),
      [500, 500, 500, 200],
    );
  });

  it('a timeout and a refused connection are failures that get retried', async () => {
    const c = await newCustomer(t);
    const slow = await startReceiver();
    slow.reply = () => ({ hangMs: 6_000 });
    const subSlow = await subscribe(c.key, `${slow.url}/slow`, ['call.completed']);
    const dead = await startReceiver();
    const deadUrl = dead.url;
    await dead.close();
    const subDead = await subscribe(c.key, `${deadUrl}/dead`, ['call.completed']);
    const { callId } = await callFor(t, c.customerId);
    await emitEvent(t, c.customerId, callId);
    await worker.drain();
    const deliveries = await t.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('event_id', 'in', t.db.selectFrom('events').select('id').where('call_id', '=', callId))
      .execute();
    const bySub = new Map(deliveries.map((d) => [d.subscription_id, d]));
    assert.equal(bySub.get(subSlow.id)?.last_error, 'timeout');
    assert.match(bySub.get(subDead.id)?.last_error ?? '', /ECONNREFUSED/);
    for (const d of deliveries) {
      assert.equal(d.status, 'pending');
      assert.equal(d.next_attempt_at.getTime(), t.clock.now().getTime() + 10_000);
    }
    await slow.close();
  });

  it('auto-disables at exactly 10 consecutive failures (not at 9), keeps the subscription, and resumes when re-enabled', async () => {
    const c = await newCustomer(t);
    const failing = await startReceiver();
    failing.reply = () => ({ status: 503 });
    const sub = await subscribe(c.key, `${failing.url}/down`, ['call.completed']);
    const { callId } = await callFor(t, c.customerId);
    // Failures closer together than the fold window would count as one.
    for (let i = 0; i < 9; i++) {
      await emitEvent(t, c.customerId, callId);
      await worker.drain();
      t.clock.advance(FAILURE_FOLD_MS);
    }
    let row = await subscriptionRow(t, sub.id);
    assert.deepEqual([row.consecutive_failures, row.is_active], [9, true], 'still active after 9');
    await emitEvent(t, c.customerId, callId);
    await worker.drain();
    row = await subscriptionRow(t, sub.id);
    assert.deepEqual([row.consecutive_failures, row.is_active], [10, false], 'disabled at 10');
    assert.match(row.disabled_reason ?? '', /10 consecutive/);
    const listed = await t.request('GET', '/api/v1/webhook-subscriptions', { key: c.key });
    assert.equal(listed.body.data[0].is_active, false, 'not deleted: listed as inactive');
    assert.equal(listed.body.data[0].consecutive_failures, 10, 'the streak is listed');

    failing.reply = () => ({ status: 200 });
    await emitEvent(t, c.customerId, callId);
    t.clock.advance(3_600_000);
    const seen = failing.received.length;
    await worker.drain();
    assert.equal(failing.received.length, seen, 'nothing is sent to a disabled subscription');

    await t.services.subscriptions.setActive(c.customerId, sub.id, true);
    await worker.drain();
    assert.equal(failing.received.length - seen, 10, 'the pending deliveries go out after re-enabling');
    row = await subscriptionRow(t, sub.id);
    assert.deepEqual([row.consecutive_failures, row.is_active], [0, true]);
    await failing.close();
  });

  it('a receiver answering 410 Gone is unsubscribed at once, with the reason recorded', async () => {
    const c = await newCustomer(t);
    const gone = await startReceiver();
    gone.reply = () => ({ status: 410 });
    const sub = await subscribe(c.key, `${gone.url}/gone`, ['call.completed']);
    const { callId } = await callFor(t, c.customerId);
    await emitEvent(t, c.customerId, callId);
    await worker.drain();
    const row = await subscriptionRow(t, sub.id);
    assert.equal(row.is_active, false);
    assert.match(row.disabled_reason ?? '', /410/);
    const delivery = await t.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('subscription_id', '=', sub.id)
      .executeTakeFirstOrThrow();
    assert.equal(delivery.status, 'failed');
    await gone.close();
  });

  it('while a rotated-out secret is in its grace period, deliveries carry a second signature made with it', async () => {
    const c = await newCustomer(t);
    const sub = await subscribe(c.key, `${http.url}/rotating`, ['call.completed']);
    const rotated = await t.services.subscriptions.rotateSecret(c.customerId, sub.id);
    const { callId } = await callFor(t, c.customerId);
    const before = http.received.length;
    await emitEvent(t, c.customerId, callId);
    await worker.drain();
    const [req] = http.received.slice(before);
    assert.ok(req);
    assert.ok(verify(rotated.secret, req.headers, req.body));
    const previous = createHmac('sha256', sub.secret)
      .update(`${req.headers['x-svc-timestamp']}.${req.body}`)
      .digest('hex');
    assert.equal(req.headers['x-svc-signature-256-previous'], previous);
  });
});

describe('SSRF guard at delivery time', () => {
  it('refuses loopback, private, link-local and mapped addresses unless the operator allows them', async () => {
    const receiver = await startReceiver();
    const guarded = createWebhookSender({ timeoutMs: 1_000, allowHttp: true, allowPrivateTargets: false });
    try {
      const port = new URL(receiver.url).port;
      for (const host of [
        '127.0.0.1',
        'localhost',
        '[::ffff:127.0.0.1]',
        '10.1.2.3',
        '169.254.169.254',
        '[::1]',
      ]) {
        const result = await guarded.send(`http://${host}:${port}/x`, {}, '{}');
        assert.equal(result.ok, false, host);
        assert.match(result.error ?? '', /not allowed/, host);
      }
      assert.equal(receiver.received.length, 0, 'nothing reached the receiver');
    } finally {
      await guarded.close();
      await receiver.close();
    }
  });

  it('refuses plain http when not allowed and never follows redirects', async () => {
    const receiver = await startReceiver();
    receiver.reply = () => ({ status: 302 });
    const sender = createWebhookSender({ timeoutMs: 1_000, allowHttp: false, allowPrivateTargets: true });
    const open = createWebhookSender({ timeoutMs: 1_000, allowHttp: true, allowPrivateTargets: true });
    try {
      assert.match((await sender.send(receiver.url, {}, '{}')).error ?? '', /http/);
      const redirected = await open.send(receiver.url, {}, '{}');
      assert.deepEqual([redirected.ok, redirected.statusCode], [false, 302]);
      assert.equal(receiver.received.length, 1);
    } finally {
      await sender.close();
      await open.close();
      await receiver.close();
    }
  });
});

describe('a subscription secret that no longer decrypts', () => {
  it('is a failed attempt, counted toward auto-disable, not an endless retry', async () => {
    const t = await startTestApp({ serverSecret: SERVER_SECRET });
    const receiver = await startReceiver();
    // A worker keyed with another server secret cannot open the stored secrets.
    const { worker, close } = testWorker(t, 'another-server-secret-0123456789abcdef');
    try {
      const c = await newCustomer(t);
      const res = await t.request('POST', '/api/v1/webhook-subscriptions', {
        key: c.key,
        body: { url: `${receiver.url}/x`, events: ['call.completed'] },
      });
      const { callId } = await callFor(t, c.customerId);
      await emitEvent(t, c.customerId, callId);
      await worker.drain();
      const row = await subscriptionRow(t, res.body.id);
      assert.equal(row.consecutive_failures, 1);
      const delivery = await t.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('subscription_id', '=', res.body.id)
        .executeTakeFirstOrThrow();
      assert.equal(delivery.last_error, 'signing secret could not be decrypted');
      assert.equal(delivery.next_attempt_at.getTime(), t.clock.now().getTime() + 10_000);
      assert.equal(receiver.received.length, 0, 'nothing unsigned was sent');
    } finally {
      await close();
      await receiver.close();
      await t.close();
    }
  });
});
