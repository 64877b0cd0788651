import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type DashboardClient, shownSecret, signedIn } from '../testing/dashboard.fixtures.ts';
import { type Receiver, startReceiver } from '../testing/receiver.ts';
import { newCustomer, startTestApp, type TestApp, type TestCustomer } from '../testing/test-app.ts';
import { callFor, emitEvent, testWorker } from '../testing/webhook.fixtures.ts';
import type { DeliveryWorker } from '../webhooks/delivery-worker.ts';
import { FAILURE_FOLD_MS, FAILURES_NEAR_LIMIT } from '../webhooks/failure-streak.ts';
import { TEST_CALL_ID } from '../webhooks/test-event.ts';

const SERVER_SECRET = 'dashboard-webhooks-secret-0123456789ab';

/** Spec 6.2, written independently of the service's signer. */
const sign = (secret: string, ts: string, body: string) =>
  createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex');

describe('dashboard webhooks', () => {
  let t: TestApp;
  let c: TestCustomer;
  let client: DashboardClient;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  let closeWorker: () => Promise<void>;

  before(async () => {
    t = await startTestApp({ serverSecret: SERVER_SECRET });
    ({ worker, close: closeWorker } = testWorker(t, SERVER_SECRET));
    receiver = await startReceiver();
    c = await newCustomer(t);
    ({ client } = await signedIn(t, c.customerId));
  });
  after(async () => {
    await client.close();
    await closeWorker();
    await receiver.close();
    await t.close();
  });

  /** Adds an endpoint through the dashboard form; returns its id and the secret shown once. */
  async function addEndpoint(path: string, events = ['call.completed']) {
    await client.get('/dashboard/webhooks/new');
    const res = await client.post('/dashboard/webhooks', {
      _csrf: client.csrf(),
      url: `${receiver.url}${path}`,
      events,
      description: 'from the dashboard',
    });
    assert.equal(res.status, 303, res.text.slice(0, 500));
    const location = String(res.headers.location);
    const secret = shownSecret((await client.get(location)).text) ?? '';
    assert.match(secret, /^whsec_/);
    return { id: location.split('/').pop() ?? '', location, secret };
  }

  const act = async (location: string, action: string, form: Record<string, string> = {}) => {
    await client.get(location);
    const res = await client.post(`${location}/${action}`, { _csrf: client.csrf(), ...form });
    assert.equal(res.status, 303, `${action}: ${res.text.slice(0, 300)}`);
    return client.get(location);
  };

  it('adds an endpoint: sms events are offered like the call events, bad URLs are refused with the reason', async () => {
    const form = await client.get('/dashboard/webhooks/new');
    assert.match(form.text, /id="event-sms.received" name="events" value="sms.received"/);
    assert.doesNotMatch(form.text, /Coming soon/);
    const bad = await client.post('/dashboard/webhooks', {
      _csrf: client.csrf(),
      url: 'ftp://x',
      events: 'call.completed',
    });
    assert.equal(bad.status, 422);
    assert.match(bad.text, /url/i);
    const none = await client.post('/dashboard/webhooks', {
      _csrf: client.csrf(),
      url: `${receiver.url}/none`,
    });
    assert.equal(none.status, 422);
    assert.match(none.text, /at least one event/);
  });

  it('sends a signed test event now, records it in the log, and a failing one does not count towards auto-disable', async () => {
    const { location, secret, id } = await addEndpoint('/test-event');
    const before = receiver.received.length;
    const page = await act(location, 'test');
    assert.match(page.text, /Test call\.completed event delivered: HTTP 200/);
    const [got] = receiver.received.slice(before);
    assert.ok(got);
    const ts = String(got.headers['x-svc-timestamp']);
    assert.match(ts, /^\d{10}$/);
    assert.equal(got.headers['x-svc-signature-256'], sign(secret, ts, got.body));
    const body = JSON.parse(got.body);
    assert.equal(body.event, 'call.completed');
    assert.equal(body.data.test, true);
    assert.equal(body.data.call_id, TEST_CALL_ID);
    assert.equal(got.headers['x-svc-event-id'], body.id);
    const log = await t.services.subscriptions.deliveryLog(c.customerId, id);
    assert.equal(log[0]?.event_id, body.id);
    assert.equal(log[0]?.status_code, 200);
    assert.equal(log[0]?.delivery_status, 'delivered');

    receiver.reply = () => ({ status: 503 });
    for (let i = 0; i < 11; i++) await act(location, 'test');
    receiver.reply = () => ({ status: 200 });
    const sub = await t.services.subscriptions.get(c.customerId, id);
    assert.equal(sub.is_active, true);
    assert.equal(sub.consecutive_failures, 0);
    const failedPage = await client.get(location);
    assert.match(failedPage.text, /HTTP 503/);
    assert.equal(await worker.drain(), 0, 'a test event is never retried');
  });

  it('is auto-disabled by a failing receiver, re-enabled from the dashboard, and delivers again', async () => {
    const { location, id } = await addEndpoint('/flaky');
    const { callId } = await callFor(t, c.customerId);
    receiver.reply = (req) => ({ status: req.body.includes('"test":true') ? 200 : 500 });
    // Failures further apart than the fold window, so each counts.
    const failOnce = async () => {
      await emitEvent(t, c.customerId, callId);
      await worker.drain();
      t.clock.advance(FAILURE_FOLD_MS);
    };
    for (let i = 0; i < FAILURES_NEAR_LIMIT - 1; i++) await failOnce();
    assert.doesNotMatch((await client.get('/dashboard/webhooks')).text, /Failing: /);
    await failOnce();
    assert.match(
      (await client.get('/dashboard/webhooks')).text,
      /Failing: 7 of 10/,
      'flagged close to the limit',
    );
    for (let i = FAILURES_NEAR_LIMIT; i < 10; i++) await failOnce();
    let page = await client.get(location);
    assert.match(page.text, /Auto-disabled/);
    assert.match(page.text, /10 consecutive delivery failures/);
    assert.match(page.text, /10 of 10/);
    assert.match(page.text, />Waiting</, 'pending deliveries wait while disabled');
    const list = await client.get('/dashboard/webhooks');
    assert.match(list.text, /Auto-disabled/);

    // A test event works on a disabled endpoint and does not re-enable it.
    page = await act(location, 'test');
    assert.match(page.text, /delivered: HTTP 200/);
    assert.equal((await t.services.subscriptions.get(c.customerId, id)).is_active, false);

    receiver.reply = () => ({ status: 200 });
    page = await act(location, 'enable');
    assert.match(page.text, /re-enabled/);
    assert.match(page.text, /0 of 10/);
    t.clock.advance(60_000);
    assert.equal(await worker.drain(), 10);
    const log = await t.services.subscriptions.deliveryLog(c.customerId, id);
    assert.equal(log.filter((a) => a.status_code === 200 && a.event === 'call.completed').length, 11);

    page = await act(location, 'disable');
    assert.match(page.text, />Disabled</);
    assert.equal(
      (await t.services.subscriptions.get(c.customerId, id)).disabled_reason,
      'disabled by the customer',
    );
    await act(location, 'enable');
  });

  it('rotates the secret: shown once, and deliveries carry the previous signature during the grace', async () => {
    const { location, secret } = await addEndpoint('/rotate');
    const page = await act(location, 'rotate-secret');
    const fresh = shownSecret(page.text) ?? '';
    assert.match(fresh, /^whsec_/);
    assert.notEqual(fresh, secret);
    assert.equal(shownSecret((await client.get(location)).text), null);
    const before = receiver.received.length;
    await act(location, 'test');
    const [got] = receiver.received.slice(before);
    assert.ok(got);
    const ts = String(got.headers['x-svc-timestamp']);
    assert.equal(got.headers['x-svc-signature-256'], sign(fresh, ts, got.body));
    assert.equal(got.headers['x-svc-signature-256-previous'], sign(secret, ts, got.body));
  });

  it('redelivers one event, or every event since a time', async () => {
    const { location, id } = await addEndpoint('/redeliver');
    const { callId } = await callFor(t, c.customerId, 9);
    // The form takes minutes: start two minutes after the earlier tests' events (test events are events too).
    t.clock.advance(120_000);
    const since = t.clock.now().toISOString().slice(0, 16);
    const first = await emitEvent(t, c.customerId, callId);
    await emitEvent(t, c.customerId, callId);
    await worker.drain();
    const before = receiver.received.filter((r) => r.body.includes(first.id)).length;
    let page = await act(location, 'redeliver', { event_id: first.id });
    assert.match(page.text, /scheduled for redelivery \(1\)/);
    await worker.drain();
    assert.equal(receiver.received.filter((r) => r.body.includes(first.id)).length, before + 1);
    page = await act(location, 'redeliver', { since });
    assert.match(page.text, /2 events since .* scheduled for redelivery/);
    assert.equal(await worker.drain(), 2);
    const log = await t.services.subscriptions.deliveryLog(c.customerId, id);
    assert.equal(log.length, 5);
  });

  it('filters the log to failed attempts, marks test events, and opens one attempt: headers redacted, body, answer', async () => {
    const { location, id } = await addEndpoint('/inspect');
    const { callId } = await callFor(t, c.customerId, 5);
    const longAnswer = `{"error":"database is down","pad":"${'é'.repeat(700)}"}`;
    receiver.reply = (req) =>
      req.body.includes('"test":true') ? { status: 200, body: 'thanks' } : { status: 503, body: longAnswer };
    await act(location, 'test');
    const failing = await emitEvent(t, c.customerId, callId);
    await worker.drain();
    receiver.reply = () => ({ status: 200 });

    const all = await client.get(location);
    const rows = (html: string) => html.match(/<tr( class="is-test")?>\s*<td data-label="Time">/g) ?? [];
    assert.equal(rows(all.text).length, 2);
    assert.equal(rows(all.text).filter((r) => r.includes('is-test')).length, 1, 'the test event is marked');
    assert.match(all.text, />Test<\/span>/);
    const failed = await client.get(`${location}?outcome=failed`);
    assert.equal(failed.status, 200);
    assert.equal(rows(failed.text).length, 1);
    assert.match(failed.text, new RegExp(failing.id));
    assert.match(failed.text, /aria-current="page">Failed only/);

    const href = failed.text.match(/href="(\/dashboard\/webhooks\/[^"]+\/attempts\/\d+)"/)?.[1];
    assert.ok(href, 'each attempt links to its page');
    const attempt = await client.get(href);
    assert.equal(attempt.status, 200);
    // The event went to every endpoint of the customer: this attempt's request is the one with its delivery id.
    const sent = receiver.received.find(
      (r) => r.body.includes(failing.id) && attempt.text.includes(String(r.headers['x-svc-delivery'])),
    );
    assert.ok(sent);
    for (const name of [
      'x-svc-event',
      'x-svc-event-id',
      'x-svc-delivery',
      'x-svc-subscription-id',
      'webhook-id',
      'content-type',
    ])
      assert.match(
        attempt.text,
        new RegExp(`>${name}</th><td class="mono">${String(sent.headers[name])}<`),
        name,
      );
    for (const name of ['x-svc-signature-256', 'webhook-signature']) {
      assert.match(attempt.text, new RegExp(`>${name}</th><td class="mono">\\[redacted\\]<`), name);
      assert.equal(attempt.text.includes(String(sent.headers[name])), false, `${name} value not shown`);
    }
    const shownBody = attempt.text.match(/<pre class="code-block" tabindex="0">([^<]*)<\/pre>/)?.[1] ?? '';
    const fromHtml = (s: string) =>
      s.replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&');
    assert.deepEqual(JSON.parse(fromHtml(shownBody)), JSON.parse(sent.body), 'the body as sent');
    // The first KiB of the answer: whole characters only (é is 2 bytes), never more.
    const answer = attempt.text.match(
      /<pre class="code-block" tabindex="0">([^<]*)<\/pre>\s*<\/section>\s*<p>/,
    )?.[1];
    assert.ok(answer);
    const shown = fromHtml(answer);
    assert.ok(longAnswer.startsWith(shown));
    assert.ok(
      Buffer.byteLength(shown) <= 1024 && Buffer.byteLength(shown) >= 1023,
      String(Buffer.byteLength(shown)),
    );
    assert.match(attempt.text, /HTTP 503/);

    // Another endpoint's attempt, or a made-up id, is not found.
    const other = await addEndpoint('/inspect-other');
    assert.equal((await client.get(href.replace(id, other.id))).status, 404);
    assert.equal((await client.get(`${location}/attempts/999999999`)).status, 404);
    assert.equal((await client.get(`${location}/attempts/abc`)).status, 404);
  });

  it('charts each endpoint: success rate and latency over 24 hours and 7 days, with text alternatives', async () => {
    const { location } = await addEndpoint('/charts');
    receiver.reply = () => ({ status: 200 });
    await act(location, 'test');
    receiver.reply = () => ({ status: 500 });
    await act(location, 'test');
    receiver.reply = () => ({ status: 200 });
    const page = await client.get(location);
    for (const id of ['chart-24h-success', 'chart-24h-latency', 'chart-7d-success', 'chart-7d-latency']) {
      assert.match(page.text, new RegExp(`<figure class="chart" id="${id}">\\s*<svg[^>]*role="img"`), id);
      assert.match(page.text, new RegExp(`<title id="${id}-title">`), id);
      assert.match(page.text, new RegExp(`<desc id="${id}-desc">`), id);
    }
    assert.match(page.text, /1 of 2 attempts in the last 24 hours got a 2xx answer \(50%\)/);
    assert.match(page.text, /1 of 2 attempts in the last 7 days got a 2xx answer \(50%\)/);
    // The data table under the 24-hour success chart: this hour at 50 % success and 50 % failed, hours
    // without attempts empty.
    const hour = `${t.clock.now().toISOString().slice(11, 13)}h`;
    assert.match(
      page.text,
      new RegExp(`<tr><th scope="row">${hour}</th><td class="num">50%</td><td class="num">50%</td></tr>`),
    );
    assert.match(page.text, /<td class="num">—<\/td>/);
  });

  it('pages the delivery log as the API pages: cursor or page, bound to its endpoint and filter', async () => {
    const { location } = await addEndpoint('/paged');
    const other = await addEndpoint('/paged-other');
    receiver.reply = () => ({ status: 200 });
    const { callId } = await callFor(t, c.customerId, 5);
    for (let i = 0; i < 7; i++) {
      await emitEvent(t, c.customerId, callId);
      t.clock.advance(1000);
    }
    await worker.drain();
    const attemptsOn = (text: string) => [...text.matchAll(/\/attempts\/(\d+)"/g)].map((m) => m[1] ?? '');
    const olderLink = (text: string) =>
      /rel="next" href="([^"]+)"/.exec(text)?.[1]?.replaceAll('&amp;', '&') ?? null;

    // Allowed: newest first, three a page; the older link continues by cursor, `page` reads the same rows.
    const pages: string[][] = [];
    let next: string | null = `${location}?limit=3`;
    while (next) {
      const res = await client.get(next);
      assert.equal(res.status, 200, next);
      pages.push(attemptsOn(res.text));
      next = olderLink(res.text);
    }
    assert.deepEqual(
      pages.map((p) => p.length),
      [3, 3, 1],
    );
    assert.equal(new Set(pages.flat()).size, 7, 'each attempt once');
    for (const [n, rows] of pages.entries()) {
      const byPage = await client.get(`${location}?limit=3&page=${n}`);
      assert.deepEqual(attemptsOn(byPage.text), rows, `page=${n}`);
    }
    const first = await client.get(`${location}?limit=3`);
    assert.match(first.text, /Page 1/);
    assert.doesNotMatch(first.text, /rel="prev"/);
    const second = await client.get(olderLink(first.text) ?? '');
    assert.match(second.text, /Page 2/);
    assert.match(second.text, new RegExp(`rel="prev" href="${location}\\?limit=3"`));
    const beyond = await client.get(`${location}?page=9`);
    assert.equal(beyond.status, 200);
    assert.match(beyond.text, /No attempts on this page/);

    // Refused, as a page (422), never a 500: a cursor of another filter or endpoint, an altered one, bad sizes.
    const cursor = /cursor=([^&"]+)/.exec(olderLink(first.text) ?? '')?.[1] ?? '';
    for (const [path, says] of [
      [`${location}?limit=3&outcome=failed&cursor=${cursor}`, /other filters/],
      [`${other.location}?limit=3&cursor=${cursor}`, /other filters/],
      [`${location}?limit=3&cursor=${cursor.slice(0, -2)}xx`, /altered/],
      [`${location}?limit=0`, /limit: Must be a whole number from 1 to 100/],
      [`${location}?limit=101`, /limit/],
      [`${location}?page=-1`, /page: Must be a whole number/],
      [`${location}?outcome=good`, /outcome: Must be one of: failed/],
    ] as const) {
      const res = await client.get(path);
      assert.equal(res.status, 422, path);
      assert.match(res.text, says, path);
    }
  });

  it('deletes after a confirmation page', async () => {
    const { location, id } = await addEndpoint('/delete-me');
    const confirm = await client.get(`${location}/delete`);
    assert.match(confirm.text, /Delete this endpoint\?/);
    assert.equal(
      (await t.services.subscriptions.get(c.customerId, id)).id,
      id,
      'the confirmation page changes nothing',
    );
    const res = await client.post(`${location}/delete`, { _csrf: client.csrf() });
    assert.equal(res.status, 303);
    assert.equal(res.headers.location, '/dashboard/webhooks');
    assert.equal((await client.get(location)).status, 404);
    assert.doesNotMatch((await client.get('/dashboard/webhooks')).text, /delete-me/);
  });
});

describe('dashboard test event timeout', () => {
  // The per-test bound is 25 times the configured timeout: a hard-coded or default timeout fails it.
  it('gives up on a receiver that never answers after WEBHOOK_TIMEOUT_MS, recorded as a timeout', {
    timeout: 5_000,
  }, async () => {
    const t = await startTestApp({ webhooks: { timeoutMs: 200 } });
    const receiver = await startReceiver();
    receiver.reply = () => ({ hangMs: 60_000 });
    try {
      const c = await newCustomer(t);
      const sub = await t.request('POST', '/api/v1/webhook-subscriptions', {
        key: c.key,
        body: { url: receiver.url, events: ['call.completed'] },
      });
      const result = await t.services.dashboard.sendTestEvent(c.customerId, sub.body.id);
      assert.deepEqual([result.ok, result.error], [false, 'timeout']);
      assert.equal(receiver.received.length, 1);
    } finally {
      await receiver.close();
      await t.close();
    }
  });
});
