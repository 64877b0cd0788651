import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { webhookHandler } from '../../examples/webhook-receiver.ts';
import { standardWebhookHandler } from '../../examples/webhook-receiver-standard.ts';
import { type ReceivedRequest, type Receiver, startReceiver } from '../../src/testing/receiver.ts';
import { newCustomer, startTestApp, type TestApp } from '../../src/testing/test-app.ts';
import { callFor, emitEvent, subscribe, testWorker } from '../../src/testing/webhook.fixtures.ts';
import type { DeliveryWorker } from '../../src/webhooks/delivery-worker.ts';
import {
  verifyWebhook,
  type WebhookEvent,
  type WebhookFailure,
  WebhookVerificationError,
} from '../src/index.ts';

const SERVER_SECRET = 'sdk-webhook-test-secret-0123456789abcdef';

describe('verifyWebhook against real deliveries', () => {
  let t: TestApp;
  let worker: DeliveryWorker;
  let closeWorker: () => Promise<void>;
  let receiver: Receiver;

  before(async () => {
    t = await startTestApp({ serverSecret: SERVER_SECRET });
    ({ worker, close: closeWorker } = testWorker(t, SERVER_SECRET));
    receiver = await startReceiver();
  });
  after(async () => {
    await closeWorker();
    await receiver.close();
    await t.close();
  });

  const now = () => t.clock.now().getTime();

  /** Subscribes `url`, emits one call.completed, delivers it, and returns the secret and what arrived. */
  async function deliverOne(
    url: string,
  ): Promise<{ secret: string; subscriptionId: string; key: string; got: () => ReceivedRequest }> {
    const c = await newCustomer(t);
    const res = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: c.key,
      body: { url, events: ['call.completed'] },
    });
    assert.equal(res.status, 201, res.text);
    const { callId } = await callFor(t, c.customerId);
    await emitEvent(t, c.customerId, callId, 'call.completed', { call_id: callId, status: 'completed' });
    const before = receiver.received.length;
    await worker.drain();
    return {
      secret: res.body.secret,
      subscriptionId: res.body.id,
      key: c.key,
      got: () => {
        const req = receiver.received.slice(before).find((r) => r.body.includes(callId));
        assert.ok(req, 'delivered');
        return req;
      },
    };
  }

  const failure = (fn: () => unknown): WebhookFailure => {
    try {
      fn();
    } catch (error) {
      if (error instanceof WebhookVerificationError) return error.reason;
      throw error;
    }
    return assert.fail('expected a WebhookVerificationError');
  };

  it('accepts a real delivery from node:http headers or a fetch Headers, as string or bytes', async () => {
    const { secret, got } = await deliverOne(`${receiver.url}/ok`);
    const req = got();
    const event = verifyWebhook(secret, req.headers, req.body, { toleranceSeconds: 300, now });
    assert.equal(event.event, 'call.completed');
    assert.equal(event.id, req.headers['x-svc-event-id']);
    const headers = new Headers(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    assert.deepEqual(verifyWebhook(secret, headers, Buffer.from(req.body), { now }), event);
    const shouted = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toUpperCase(), v]));
    assert.deepEqual(verifyWebhook([secret], shouted, new TextEncoder().encode(req.body), { now }), event);
  });

  it('refuses a changed body, another secret, an old or future timestamp, and missing or malformed headers', async () => {
    const { secret, got } = await deliverOne(`${receiver.url}/refuse`);
    const { headers, body } = got();
    const h = (changes: Record<string, string | undefined>) => ({ ...headers, ...changes });
    assert.equal(
      failure(() => verifyWebhook(secret, headers, body.replace('completed', 'failed'), { now })),
      'signature_mismatch',
    );
    assert.equal(
      failure(() => verifyWebhook('whsec_other', headers, body, { now })),
      'signature_mismatch',
    );
    assert.equal(
      failure(() => verifyWebhook(secret, headers, body, { now: () => now() + 301_000 })),
      'timestamp_out_of_tolerance',
    );
    assert.equal(
      failure(() => verifyWebhook(secret, headers, body, { now: () => now() - 301_000 })),
      'timestamp_out_of_tolerance',
    );
    assert.doesNotThrow(() => verifyWebhook(secret, headers, body, { now: () => now() + 299_000 }));
    assert.equal(
      failure(() => verifyWebhook(secret, h({ 'x-svc-timestamp': undefined }), body, { now })),
      'missing_timestamp',
    );
    assert.equal(
      failure(() => verifyWebhook(secret, h({ 'x-svc-timestamp': '17e8' }), body, { now })),
      'invalid_timestamp',
    );
    assert.equal(
      failure(() => verifyWebhook(secret, h({ 'x-svc-signature-256': undefined }), body, { now })),
      'missing_signature',
    );
    assert.equal(
      failure(() => verifyWebhook(secret, h({ 'x-svc-signature-256': 'abc' }), body, { now })),
      'invalid_signature_format',
    );
    assert.equal(
      failure(() => verifyWebhook(secret, h({ 'x-svc-event': 'call.insight.received' }), body, { now })),
      'event_mismatch',
    );
    // The timestamp is signed: moving it invalidates the signature.
    const moved = String(Number(headers['x-svc-timestamp']) + 1);
    assert.equal(
      failure(() => verifyWebhook(secret, h({ 'x-svc-timestamp': moved }), body, { now })),
      'signature_mismatch',
    );
  });

  it('picks the secret by X-Svc-Subscription-Id for two subscriptions to one URL, and refuses what it must', async () => {
    const c = await newCustomer(t);
    const url = `${receiver.url}/two`;
    const one = await subscribe(t, c, url, ['call.completed']);
    const two = await subscribe(t, c, url, ['call.completed', 'call.insight.received']);
    const { callId } = await callFor(t, c.customerId);
    await emitEvent(t, c.customerId, callId);
    await worker.drain();
    const got = receiver.received.filter((r) => r.body.includes(callId));
    const to = (id: string) => {
      const req = got.find((r) => r.headers['x-svc-subscription-id'] === id);
      assert.ok(req, `delivered to ${id}`);
      return req;
    };
    const secrets = { [one.id]: one.secret, [two.id]: [two.secret, 'whsec_being-rotated-in'] };
    const verdict = (map: Record<string, string | string[]>, req: ReceivedRequest, change = {}) => {
      try {
        verifyWebhook(map, { ...req.headers, ...change }, req.body, { now });
        return 'accepted';
      } catch (error) {
        if (error instanceof WebhookVerificationError) return error.reason;
        throw error;
      }
    };
    const cases = [
      { name: 'the first subscription', map: secrets, req: to(one.id), expected: 'accepted' },
      { name: 'the second (a list of secrets)', map: secrets, req: to(two.id), expected: 'accepted' },
      {
        name: 'only the other one held',
        map: { [two.id]: two.secret },
        req: to(one.id),
        expected: 'unknown_subscription',
      },
      {
        name: 'the id changed to the other subscription',
        map: secrets,
        req: to(one.id),
        change: { 'x-svc-subscription-id': two.id },
        expected: 'signature_mismatch',
      },
      {
        name: 'no subscription header',
        map: secrets,
        req: to(one.id),
        change: { 'x-svc-subscription-id': undefined },
        expected: 'unknown_subscription',
      },
      ...['constructor', '__proto__', 'toString'].map((id) => ({
        name: `an id of Object.prototype (${id})`,
        map: secrets,
        req: to(one.id),
        change: { 'x-svc-subscription-id': id },
        expected: 'unknown_subscription',
      })),
    ];
    assert.deepEqual(
      Object.fromEntries(cases.map((k) => [k.name, verdict(k.map, k.req, k.change)])),
      Object.fromEntries(cases.map((k) => [k.name, k.expected])),
    );
    // One secret, or a list, is used as given, whatever subscription the delivery names.
    assert.equal(
      verifyWebhook(one.secret, to(one.id).headers, to(one.id).body, { now }).event,
      'call.completed',
    );
    assert.equal(
      failure(() => verifyWebhook([two.secret], to(one.id).headers, to(one.id).body, { now })),
      'signature_mismatch',
    );
  });

  it('keeps accepting the old secret during a rotation through the -Previous signature', async () => {
    const c = await newCustomer(t);
    const created = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: c.key,
      body: { url: `${receiver.url}/rotate`, events: ['call.completed'] },
    });
    const oldSecret: string = created.body.secret;
    const rotated = await t.request(
      'POST',
      `/api/v1/webhook-subscriptions/${created.body.id}/rotate-secret`,
      {
        key: c.key,
        body: {},
      },
    );
    assert.equal(rotated.status, 200, rotated.text);
    const { callId } = await callFor(t, c.customerId);
    await emitEvent(t, c.customerId, callId);
    await worker.drain();
    const req = receiver.received.find((r) => r.body.includes(callId));
    assert.ok(req?.headers['x-svc-signature-256-previous']);
    assert.equal(verifyWebhook(oldSecret, req.headers, req.body, { now }).event, 'call.completed');
    assert.equal(verifyWebhook(rotated.body.secret, req.headers, req.body, { now }).event, 'call.completed');
  });

  it('drives the example receiver (plain node:http): verified events in, forgeries out', async () => {
    const events: WebhookEvent[] = [];
    // The secret exists only once subscribed, and subscribing needs the URL: swap the handler in after.
    let handler: http.RequestListener = (_req, res) => void res.writeHead(503).end();
    const server = http.createServer((req, res) => handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    try {
      const c = await newCustomer(t);
      const sub = await t.request('POST', '/api/v1/webhook-subscriptions', {
        key: c.key,
        body: { url, events: ['call.completed'] },
      });
      handler = webhookHandler({ secret: sub.body.secret, onEvent: (e) => void events.push(e) });
      const { callId } = await callFor(t, c.customerId);
      await emitEvent(t, c.customerId, callId);
      await worker.drain();
      assert.deepEqual(
        events.map((e) => [e.event, 'call_id' in e.data ? e.data.call_id : null]),
        [['call.completed', callId]],
      );
      const forged = await fetch(url, {
        method: 'POST',
        headers: { 'x-svc-timestamp': '2000000000', 'x-svc-signature-256': '0'.repeat(64) },
        body: '{"event":"call.completed"}',
      });
      assert.equal(forged.status, 400);
      assert.match(await forged.text(), /rejected: timestamp_out_of_tolerance/);
      assert.equal(events.length, 1);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('drives the Standard Webhooks example receiver, with the secret in either spelling', async () => {
    for (const spelling of ['base64', 'base64url'] as const) {
      const events: WebhookEvent[] = [];
      let handler: http.RequestListener = (_req, res) => void res.writeHead(503).end();
      const server = http.createServer((req, res) => handler(req, res));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
      try {
        const c = await newCustomer(t);
        const sub = await t.request('POST', '/api/v1/webhook-subscriptions', {
          key: c.key,
          body: { url, events: ['call.completed'] },
        });
        const bytes = Buffer.from(String(sub.body.secret).slice('whsec_'.length), 'base64');
        const secret = `whsec_${bytes.toString(spelling)}`;
        handler = standardWebhookHandler({ secret, onEvent: (e) => void events.push(e) });
        // The library reads the real clock: deliver at real time.
        t.clock.set(new Date());
        const { callId } = await callFor(t, c.customerId);
        await emitEvent(t, c.customerId, callId);
        await worker.drain();
        assert.deepEqual(
          events.map((e) => [e.event, 'call_id' in e.data ? e.data.call_id : null]),
          [['call.completed', callId]],
          spelling,
        );
        const forged = await fetch(url, {
          method: 'POST',
          headers: { 'webhook-id': 'x', 'webhook-timestamp': '1000000000', 'webhook-signature': 'v1,AAAA' },
          body: '{"event":"call.completed"}',
        });
        assert.equal(forged.status, 400, spelling);
        assert.match(await forged.text(), /rejected: Message timestamp too old/, spelling);
        assert.equal(events.length, 1, spelling);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    }
  });
});
