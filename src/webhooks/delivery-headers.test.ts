import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createSecretBox } from '../crypto/secret-box.ts';
import { type Receiver, startReceiver } from '../testing/receiver.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { callFor, emitEvent, subscribe, testWorker } from '../testing/webhook.fixtures.ts';
import { deliveryHeaders } from './delivery-headers.ts';
import type { DeliveryWorker } from './delivery-worker.ts';

const SERVER_SECRET = 'delivery-headers-test-secret-0123456789';

/** Spec 6.2, computed here rather than with the code under test. */
const hmac = (secret: string, timestamp: string, body: string) =>
  createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');

/** Standard Webhooks, computed by the reference library from the secret's standard-base64 spelling. */
const standard = (secret: string, id: string, timestamp: string, body: string) =>
  new Webhook(secret).sign(id, new Date(Number(timestamp) * 1000), body);

/** 32 bytes whose standard base64 has `+`, `/` and the `=` padding: what newWebhookSecret makes. */
const NEW_SECRET = `whsec_${Buffer.alloc(32, 0xfb).toString('base64')}`;
const OLDER_SECRET = `whsec_${Buffer.alloc(32, 0xfe).toString('base64')}`;
/** A secret made before standard base64: base64url with `-` and `_`, no padding. */
const BASE64URL_BYTES = Buffer.alloc(32, 0xff);
const BASE64URL_SECRET = `whsec_${BASE64URL_BYTES.toString('base64url')}`;

const ATTEMPT = {
  subscriptionId: 'sub_0123456789abcdef01234567',
  eventType: 'call.completed',
  eventId: '6f1c2b9e-5d4a-4c3b-9a8f-7e6d5c4b3a21',
  deliveryId: 'd',
  body: '{"a":1}',
  now: new Date('2026-11-21T12:00:00.000Z'),
} as const;

describe('delivery headers', () => {
  const box = createSecretBox(SERVER_SECRET);
  const headersFor = (secret: string, previous: string | null, expiresAt: Date | null) =>
    deliveryHeaders(
      {
        secret_encrypted: box.seal(secret),
        previous_secret_encrypted: previous ? box.seal(previous) : null,
        previous_secret_expires_at: expiresAt,
      },
      box,
      ATTEMPT,
    );

  it('sign with the previous secret too only while the rotated-out secret is in its grace period', () => {
    const at = (ms: number) => new Date(ATTEMPT.now.getTime() + ms);
    const cases = [
      { name: 'no rotation', previous: null, expiresAt: null, sent: false },
      { name: 'grace ends in an hour', previous: OLDER_SECRET, expiresAt: at(3_600_000), sent: true },
      { name: 'grace ends in 1 ms', previous: OLDER_SECRET, expiresAt: at(1), sent: true },
      { name: 'grace ends now', previous: OLDER_SECRET, expiresAt: at(0), sent: false },
      { name: 'grace ended an hour ago', previous: OLDER_SECRET, expiresAt: at(-3_600_000), sent: false },
    ];
    for (const c of cases) {
      const headers = headersFor(NEW_SECRET, c.previous, c.expiresAt);
      const ts = headers['x-svc-timestamp'] ?? '';
      assert.equal(ts, String(ATTEMPT.now.getTime() / 1000), c.name);
      assert.equal(headers['x-svc-signature-256'], hmac(NEW_SECRET, ts, ATTEMPT.body), c.name);
      assert.equal(
        headers['x-svc-signature-256-previous'],
        c.sent ? hmac(OLDER_SECRET, ts, ATTEMPT.body) : undefined,
        c.name,
      );
      assert.equal(headers['webhook-id'], ATTEMPT.eventId, c.name);
      assert.equal(headers['webhook-timestamp'], ts, c.name);
      assert.equal(headers['x-svc-subscription-id'], ATTEMPT.subscriptionId, c.name);
      const current = standard(NEW_SECRET, ATTEMPT.eventId, ts, ATTEMPT.body);
      assert.equal(
        headers['webhook-signature'],
        c.sent ? `${current} ${standard(OLDER_SECRET, ATTEMPT.eventId, ts, ATTEMPT.body)}` : current,
        c.name,
      );
    }
  });

  it('key the spec scheme with the whole secret and Standard Webhooks with its decoded bytes, old secrets too', () => {
    const cases = [
      { name: 'standard base64 (new)', secret: NEW_SECRET, standardSpelling: NEW_SECRET },
      {
        name: 'base64url (before)',
        secret: BASE64URL_SECRET,
        standardSpelling: `whsec_${BASE64URL_BYTES.toString('base64')}`,
      },
    ];
    for (const c of cases) {
      const headers = headersFor(c.secret, null, null);
      const ts = headers['x-svc-timestamp'] ?? '';
      assert.equal(headers['x-svc-signature-256'], hmac(c.secret, ts, ATTEMPT.body), c.name);
      assert.equal(
        headers['webhook-signature'],
        standard(c.standardSpelling, ATTEMPT.eventId, ts, ATTEMPT.body),
        c.name,
      );
    }
  });
});

describe('headers of real deliveries', () => {
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

  it('signs with the old secret too until the grace period ends, and never after', async () => {
    const c = await newCustomer(t);
    const created = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: c.key,
      body: { url: `${receiver.url}/${c.customerId}`, events: ['call.completed'] },
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
    const newSecret: string = rotated.body.secret;
    const graceEnd = Date.parse(rotated.body.previous_secret_expires_at);
    const { callId } = await callFor(t, c.customerId);

    /** Delivers one event at `atMs` and returns the request the receiver got. */
    async function deliveredAt(atMs: number) {
      t.clock.set(new Date(atMs));
      const event = await emitEvent(t, c.customerId, callId);
      await worker.drain();
      const req = receiver.received.find((r) => r.body.includes(event.id));
      assert.ok(req, 'delivered');
      const ts = String(req.headers['x-svc-timestamp']);
      assert.equal(
        req.headers['x-svc-signature-256'],
        hmac(newSecret, ts, req.body),
        'signed with the new secret',
      );
      return { req, ts };
    }

    const during = await deliveredAt(graceEnd - 1000);
    assert.equal(
      during.req.headers['x-svc-signature-256-previous'],
      hmac(oldSecret, during.ts, during.req.body),
      'one second before the end: the old secret signs too',
    );
    for (const atMs of [graceEnd, graceEnd + 1000, graceEnd + 86_400_000]) {
      const { req } = await deliveredAt(atMs);
      assert.equal(req.headers['x-svc-signature-256-previous'], undefined, new Date(atMs).toISOString());
    }
  });

  it('name their subscription on every kind of delivery, so a receiver with two subscriptions to one URL picks the secret', async () => {
    const c = await newCustomer(t);
    const url = `${receiver.url}/two/${c.customerId}`;
    const first = await subscribe(t, c, url, ['call.completed']);
    const second = await subscribe(t, c, url, ['call.completed', 'call.insight.received']);
    const secrets = new Map([first, second].map((s) => [s.id, s.secret]));
    /** What each kind of delivery sent, and the subscriptions it was for. */
    const phases: { kind: string; expected: string[]; got: typeof receiver.received }[] = [];
    async function phase(kind: string, expected: string[], act: () => Promise<void>) {
      const before = receiver.received.length;
      await act();
      phases.push({ kind, expected, got: receiver.received.slice(before) });
    }

    t.clock.set(new Date());
    const { callId } = await callFor(t, c.customerId);
    let failedOnce = false;
    receiver.reply = (req) => {
      if (failedOnce || req.headers['x-svc-subscription-id'] !== first.id) return { status: 200 };
      failedOnce = true;
      return { status: 500 };
    };
    let eventId = '';
    try {
      await phase('first attempts', [first.id, second.id], async () => {
        eventId = (await emitEvent(t, c.customerId, callId)).id;
        await worker.drain();
      });
      await phase('retry', [first.id], async () => {
        t.clock.set(new Date(t.clock.now().getTime() + 60_000));
        await worker.drain();
      });
    } finally {
      receiver.reply = () => ({ status: 200 });
    }
    await phase('redelivery', [second.id], async () => {
      const res = await t.request('POST', `/api/v1/webhook-events/${eventId}/redeliver`, {
        key: c.key,
        body: { subscription_id: second.id },
      });
      assert.equal(res.status, 202, res.text);
      await worker.drain();
    });
    await phase('test event', [first.id], async () => {
      const sent = await t.services.dashboard.sendTestEvent(c.customerId, first.id);
      assert.equal(sent.ok, true);
    });

    for (const { kind, expected, got } of phases) {
      const named = got.map((r) => String(r.headers['x-svc-subscription-id']));
      assert.deepEqual(named.sort(), [...expected].sort(), kind);
      for (const req of got) {
        const id = String(req.headers['x-svc-subscription-id']);
        const ts = String(req.headers['x-svc-timestamp']);
        const other = id === first.id ? second : first;
        assert.equal(
          req.headers['x-svc-signature-256'],
          hmac(secrets.get(id) ?? '', ts, req.body),
          `${kind}: the secret it names`,
        );
        assert.notEqual(
          req.headers['x-svc-signature-256'],
          hmac(other.secret, ts, req.body),
          `${kind}: not the other`,
        );
      }
    }
  });
});
