import assert from 'node:assert/strict';
import { after, before, describe, it, mock } from 'node:test';
import { generate } from 'selfsigned';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { verifyWebhook } from '../../sdk/src/index.ts';
import { createSecretBox } from '../crypto/secret-box.ts';
import { createWebhookSender, type WebhookSender } from '../delivery/http-sender.ts';
import type { LookupAll } from '../delivery/ssrf-guard.ts';
import { signedIn } from '../testing/dashboard.fixtures.ts';
import { type ReceivedRequest, type Receiver, startReceiver } from '../testing/receiver.ts';
import { newCustomer, startTestApp, type TestApp, type TestCustomer } from '../testing/test-app.ts';
import { callFor, emitEvent, workerOver } from '../testing/webhook.fixtures.ts';
import type { DeliveryWorker } from './delivery-worker.ts';

const SERVER_SECRET = 'standard-webhooks-test-secret-0123456789';
const HOST = 'hooks.example.test';
/** The only address HOST resolves to: public, so the production SSRF policy lets it through. */
const PUBLIC_ADDRESS = '93.184.216.34';

/** The two libraries under test: the reference one, and Svix's (which wraps it and reads svix-* too). */
const LIBRARIES = [
  { name: 'standardwebhooks', verifier: (secret: string) => new StandardWebhook(secret) },
  { name: 'svix', verifier: (secret: string) => new SvixWebhook(secret) },
];

/** Headers as a receiver passes them on: the lower-case names Node gives, single values. */
const headersOf = (req: ReceivedRequest): Record<string, string> =>
  Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));

/** What each library says of `body` under `secret`: 'accepted', or its error message. */
function verdicts(secret: string, req: ReceivedRequest, body = req.body): Record<string, string> {
  return Object.fromEntries(
    LIBRARIES.map(({ name, verifier }) => {
      try {
        verifier(secret).verify(body, headersOf(req));
        return [name, 'accepted'];
      } catch (error) {
        return [name, (error as Error).message];
      }
    }),
  );
}

const ALL_ACCEPT = { standardwebhooks: 'accepted', svix: 'accepted' };
const both = (message: string) => ({ standardwebhooks: message, svix: message });

/** The libraries read the real clock; this runs `fn` with it set to `at` (synchronously, nothing else runs). */
function atRealTime<T>(at: Date, fn: () => T): T {
  mock.timers.enable({ apis: ['Date'], now: at });
  try {
    return fn();
  } finally {
    mock.timers.reset();
  }
}

describe('Standard Webhooks libraries verify real deliveries (production target policy)', () => {
  let t: TestApp;
  let receiver: Receiver;
  let sender: WebhookSender;
  let worker: DeliveryWorker;

  before(async () => {
    const pems = await generate([{ name: 'commonName', value: HOST }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: HOST }] }],
    });
    receiver = await startReceiver({ key: pems.private, cert: pems.cert });
    const network = {
      ca: pems.cert,
      lookup: (async (host) => (host === HOST ? [PUBLIC_ADDRESS] : [])) satisfies LookupAll,
      // Only the public address the guard checked is served, by the loopback receiver.
      routeCheckedAddress: (address: string) => (address === PUBLIC_ADDRESS ? '127.0.0.1' : address),
    };
    const production = { allowHttpTargets: false, allowPrivateTargets: false };
    t = await startTestApp({ serverSecret: SERVER_SECRET, webhooks: { ...production, network } });
    sender = createWebhookSender({
      timeoutMs: 5_000,
      allowHttp: production.allowHttpTargets,
      allowPrivateTargets: production.allowPrivateTargets,
      ...network,
    });
    worker = workerOver(t, SERVER_SECRET, sender, {
      concurrency: 5,
      perSubscription: 5,
      leaseMs: 5_000,
      pollMs: 20,
      random: () => 0.5,
    });
  });
  after(async () => {
    await worker.stop();
    await sender.close();
    await receiver.close();
    await t.close();
  });

  /** A new customer with one subscription to the receiver: each customer's events reach only its own. */
  async function subscribe(): Promise<{ c: TestCustomer; id: string; secret: string }> {
    const c = await newCustomer(t);
    const res = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: c.key,
      body: { url: `https://${HOST}:${new URL(receiver.url).port}/hooks`, events: ['call.completed'] },
    });
    assert.equal(res.status, 201, res.text);
    return { c, id: res.body.id, secret: res.body.secret };
  }

  /** Records one event now (by the test clock) and returns every attempt the receiver got for it. */
  async function deliverOne(
    c: TestCustomer,
    at = new Date(),
  ): Promise<{ eventId: string; attempts: ReceivedRequest[] }> {
    t.clock.set(at);
    const { callId } = await callFor(t, c.customerId);
    const event = await emitEvent(t, c.customerId, callId);
    await worker.drain();
    const attempts = receiver.received.filter((r) => r.body.includes(event.id));
    assert.ok(attempts.length > 0, 'delivered');
    return { eventId: event.id, attempts };
  }

  it('new secrets are whsec_ and standard base64 of 32 bytes', async () => {
    const { secret } = await subscribe();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
  });

  it('a delivery verifies with both libraries; a changed body does not; the spec headers are unchanged', async () => {
    const { c, secret } = await subscribe();
    const { eventId, attempts } = await deliverOne(c);
    const [req] = attempts;
    assert.ok(req);
    assert.equal(req.headers['webhook-id'], eventId);
    assert.equal(req.headers['webhook-timestamp'], req.headers['x-svc-timestamp']);
    assert.match(String(req.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(verdicts(secret, req), ALL_ACCEPT);
    assert.deepEqual(
      new StandardWebhook(secret).verify(req.body, headersOf(req)),
      JSON.parse(req.body),
      'standardwebhooks returns the parsed event',
    );
    const tampered = req.body.replace('"completed"', '"failed"');
    assert.notEqual(tampered, req.body);
    assert.deepEqual(verdicts(secret, req, tampered), both('No matching signature found'));
    assert.deepEqual(
      verdicts(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, req),
      both('No matching signature found'),
    );
    // Existing receivers: the spec's scheme, checked by the SDK, as before.
    assert.equal(verifyWebhook(secret, req.headers, req.body).id, eventId);
  });

  it('a retried delivery keeps its webhook-id and verifies at each attempt', async () => {
    const { c, secret } = await subscribe();
    let failed = 0;
    receiver.reply = () => (failed++ === 0 ? { status: 500 } : { status: 200 });
    try {
      const start = new Date();
      const { eventId } = await deliverOne(c, start);
      t.clock.set(new Date(start.getTime() + 60_000));
      await worker.drain();
      const attempts = receiver.received.filter((r) => r.body.includes(eventId));
      assert.equal(attempts.length, 2, 'the first attempt failed, the retry arrived');
      for (const req of attempts) {
        assert.equal(req.headers['webhook-id'], eventId);
        assert.equal(req.headers['x-svc-event-id'], eventId);
        atRealTime(new Date(Number(req.headers['webhook-timestamp']) * 1000), () =>
          assert.deepEqual(verdicts(secret, req), ALL_ACCEPT),
        );
      }
      assert.notEqual(attempts[0]?.headers['webhook-timestamp'], attempts[1]?.headers['webhook-timestamp']);
    } finally {
      receiver.reply = () => ({ status: 200 });
    }
  });

  it('during a rotation grace, deliveries and dashboard test events verify with the old secret and the new', async () => {
    const sub = await subscribe();
    const rotated = await t.request('POST', `/api/v1/webhook-subscriptions/${sub.id}/rotate-secret`, {
      key: sub.c.key,
      body: {},
    });
    assert.equal(rotated.status, 200, rotated.text);
    const fresh: string = rotated.body.secret;
    assert.match(fresh, /^whsec_[A-Za-z0-9+/]{43}=$/, 'a rotation makes a standard-base64 secret too');
    assert.notEqual(fresh, sub.secret);

    const { attempts } = await deliverOne(sub.c);
    const { client } = await signedIn(t, sub.c.customerId);
    const before = receiver.received.length;
    t.clock.set(new Date());
    const location = `/dashboard/webhooks/${sub.id}`;
    await client.get(location);
    const sent = await client.post(`${location}/test`, { _csrf: client.csrf() });
    assert.equal(sent.status, 303, sent.text.slice(0, 300));
    await client.close();
    const testEvents = receiver.received.slice(before);
    assert.equal(testEvents.length, 1, 'the test event arrived');
    assert.equal(JSON.parse(testEvents[0]?.body ?? '{}').data.test, true);

    for (const [kind, req] of [
      ['delivery', attempts[0]],
      ['test event', testEvents[0]],
    ] as const) {
      assert.ok(req);
      assert.equal(String(req.headers['webhook-signature']).split(' ').length, 2, kind);
      assert.deepEqual(verdicts(sub.secret, req), ALL_ACCEPT, `${kind}, old secret`);
      assert.deepEqual(verdicts(fresh, req), ALL_ACCEPT, `${kind}, new secret`);
      assert.deepEqual(
        verdicts(fresh, req, `${req.body} `),
        both('No matching signature found'),
        `${kind}, changed body`,
      );
    }
  });

  it('the libraries refuse a timestamp outside their 5-minute tolerance, and only that', async () => {
    const { c: customer, secret } = await subscribe();
    const now = Date.now();
    const cases = [
      { name: '4 minutes old', offsetMs: -240_000, expected: ALL_ACCEPT },
      { name: '6 minutes old', offsetMs: -360_000, expected: both('Message timestamp too old') },
      { name: '6 minutes ahead', offsetMs: 360_000, expected: both('Message timestamp too new') },
    ];
    for (const c of cases) {
      const at = new Date(now + c.offsetMs);
      const [req] = (await deliverOne(customer, at)).attempts;
      assert.ok(req);
      assert.equal(req.headers['webhook-timestamp'], String(Math.floor(at.getTime() / 1000)), c.name);
      assert.deepEqual(
        atRealTime(new Date(now), () => verdicts(secret, req)),
        c.expected,
        c.name,
      );
      assert.deepEqual(
        atRealTime(at, () => verdicts(secret, req)),
        ALL_ACCEPT,
        `${c.name}, at its own time`,
      );
    }
  });

  it('a subscription with a base64url secret from before keeps the spec scheme; Standard Webhooks needs the base64 spelling', async () => {
    const sub = await subscribe();
    const bytes = Buffer.alloc(32, 0xfb);
    const old = `whsec_${bytes.toString('base64url')}`;
    assert.match(old, /[-_]/);
    await t.db
      .updateTable('webhook_subscriptions')
      .set({ secret_encrypted: createSecretBox(SERVER_SECRET).seal(old) })
      .where('id', '=', sub.id)
      .execute();
    const { eventId, attempts } = await deliverOne(sub.c);
    const [req] = attempts;
    assert.ok(req);
    assert.equal(verifyWebhook(old, req.headers, req.body).id, eventId, 'the spec scheme, unchanged');
    for (const { name, verifier } of LIBRARIES) {
      assert.throws(() => verifier(old), /incorrect characters/, `${name} cannot decode base64url`);
    }
    assert.deepEqual(verdicts(`whsec_${bytes.toString('base64')}`, req), ALL_ACCEPT);
  });
});
