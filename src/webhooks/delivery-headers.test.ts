import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createSecretBox } from '../crypto/secret-box.ts';
import { type Receiver, startReceiver } from '../testing/receiver.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { callFor, emitEvent, testWorker } from '../testing/webhook.fixtures.ts';
import { deliveryHeaders } from './delivery-headers.ts';
import type { DeliveryWorker } from './delivery-worker.ts';

const SERVER_SECRET = 'delivery-headers-test-secret-0123456789';

/** Spec 6.2, computed here rather than with the code under test. */
const hmac = (secret: string, timestamp: string, body: string) =>
  createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');

describe('the previous-secret signature header', () => {
  it('is sent only while the rotated-out secret is in its grace period', () => {
    const box = createSecretBox(SERVER_SECRET);
    const now = new Date('2026-11-21T12:00:00.000Z');
    const attempt = {
      eventType: 'call.completed',
      eventId: 'e',
      deliveryId: 'd',
      body: '{"a":1}',
      now,
    } as const;
    const at = (ms: number) => new Date(now.getTime() + ms);
    const cases = [
      { name: 'no rotation', previous: null, expiresAt: null, sent: false },
      { name: 'grace ends in an hour', previous: 'whsec_old', expiresAt: at(3_600_000), sent: true },
      { name: 'grace ends in 1 ms', previous: 'whsec_old', expiresAt: at(1), sent: true },
      { name: 'grace ends now', previous: 'whsec_old', expiresAt: at(0), sent: false },
      { name: 'grace ended an hour ago', previous: 'whsec_old', expiresAt: at(-3_600_000), sent: false },
    ];
    for (const c of cases) {
      const headers = deliveryHeaders(
        {
          secret_encrypted: box.seal('whsec_new'),
          previous_secret_encrypted: c.previous ? box.seal(c.previous) : null,
          previous_secret_expires_at: c.expiresAt,
        },
        box,
        attempt,
      );
      const ts = headers['x-svc-timestamp'] ?? '';
      assert.equal(headers['x-svc-signature-256'], hmac('whsec_new', ts, attempt.body), c.name);
      assert.equal(
        headers['x-svc-signature-256-previous'],
        c.sent ? hmac('whsec_old', ts, attempt.body) : undefined,
        c.name,
      );
    }
  });
});

describe('secret rotation through real deliveries', () => {
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
});
