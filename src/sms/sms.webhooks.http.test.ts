import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generate } from 'selfsigned';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import twilioSdk from 'twilio';
import { createWebhookSender, type WebhookSender } from '../delivery/http-sender.ts';
import type { LookupAll } from '../delivery/ssrf-guard.ts';
import { type FakeTwilio, startFakeTwilio } from '../testing/fake-twilio.ts';
import { newAssistant, newCaller } from '../testing/outbound.fixtures.ts';
import { type Receiver, startReceiver } from '../testing/receiver.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';
import { workerOver } from '../testing/webhook.fixtures.ts';
import type { DeliveryWorker } from '../webhooks/delivery-worker.ts';
import { eventEnvelopeSchemas } from '../webhooks/envelope.ts';

const SERVER_SECRET = 'sms-webhooks-test-secret-0123456789abcd';
const HOST = 'hooks.example.test';
const PUBLIC_ADDRESS = '93.184.216.34';
const ACCOUNT = `AC${'3'.repeat(32)}`;
const TOKEN = 'twilio-story-token';
const PUBLIC = 'https://sms.example.com';
const ASSISTANT_NUMBER = '+14155557301';
const CUSTOMER_NUMBER = '+14155557302';

/**
 * The whole story, with the production target policy, over Twilio (a fake of its REST API, callbacks signed as it
 * signs them): a message sent, delivered, answered by the recipient; `sms.sent` and `sms.received` delivered to the
 * customer's endpoint and verified there by the Standard Webhooks reference library.
 */
describe('text messages end to end: sent, delivered, answered, both events verified by standardwebhooks', () => {
  let t: TestApp;
  let fake: FakeTwilio;
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
    fake = await startFakeTwilio({ accountSid: ACCOUNT, authToken: TOKEN });
    const network = {
      ca: pems.cert,
      lookup: (async (host) => (host === HOST ? [PUBLIC_ADDRESS] : [])) satisfies LookupAll,
      routeCheckedAddress: (address: string) => (address === PUBLIC_ADDRESS ? '127.0.0.1' : address),
    };
    const production = { allowHttpTargets: false, allowPrivateTargets: false };
    t = await startTestApp({
      serverSecret: SERVER_SECRET,
      webhooks: { ...production, network },
      sms: { twilio: { accountSid: ACCOUNT, authToken: TOKEN, apiBaseUrl: fake.url, publicBaseUrl: PUBLIC } },
    });
    sender = createWebhookSender({
      timeoutMs: 5_000,
      allowHttp: false,
      allowPrivateTargets: false,
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
    await fake.close();
    await t.close();
  });

  function twilioCallback(path: string, form: Record<string, string>) {
    const signature = twilioSdk.getExpectedTwilioSignature(TOKEN, `${PUBLIC}${path}`, form);
    return t.request('POST', path, {
      rawBody: new URLSearchParams(form).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    });
  }

  it('tells the story', async (ctx) => {
    t.clock.set(new Date());
    const first = await newCaller(t);
    const c = {
      ...first,
      assistant: await newAssistant(t, first.customerId, { phoneNumbers: [ASSISTANT_NUMBER] }),
    };
    const subscription = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: c.key,
      body: {
        url: `https://${HOST}:${new URL(receiver.url).port}/hooks`,
        events: ['sms.sent', 'sms.received'],
      },
    });
    assert.equal(subscription.status, 201, subscription.text);
    const secret = String(subscription.body.secret);

    const sent = await t.request('POST', '/api/v1/sms/send', {
      key: c.key,
      headers: { 'idempotency-key': 'booking-1234-confirmation' },
      body: {
        assistant_id: c.assistant.id,
        to_number: CUSTOMER_NUMBER,
        body: 'Your table for 2 is booked for Friday at 7 pm. Reply STOP to opt out.',
        external_id: 'booking-1234',
      },
    });
    assert.equal(sent.status, 201, sent.text);
    ctx.diagnostic(`POST /api/v1/sms/send → ${sent.status} ${sent.body.id} ${sent.body.status}`);
    const sid = fake.requests.find((r) => r.path.endsWith('/Messages.json'))?.form;
    ctx.diagnostic(`Twilio got To=${sid?.To} From=${sid?.From} StatusCallback=${sid?.StatusCallback}`);
    const twilioSid = [...fake.messages.keys()][0] ?? '';
    const statusPath = `/provider/twilio/sms-status?message_id=${sent.body.id}`;
    for (const status of ['sent', 'delivered']) {
      const res = await twilioCallback(statusPath, {
        MessageSid: twilioSid,
        MessageStatus: status,
        AccountSid: ACCOUNT,
      });
      assert.equal(res.status, 204);
      ctx.diagnostic(`Twilio status callback ${status} (signed) → ${res.status}`);
    }
    const reply = await twilioCallback('/provider/twilio/sms-inbound', {
      MessageSid: `SM${'e'.repeat(32)}`,
      AccountSid: ACCOUNT,
      From: CUSTOMER_NUMBER,
      To: ASSISTANT_NUMBER,
      Body: 'Perfect, see you then!',
    });
    assert.equal(reply.status, 200);
    ctx.diagnostic(`Twilio inbound callback (the reply, signed) → ${reply.status} ${reply.text.trim()}`);
    await worker.drain();

    const deliveries = receiver.received.filter((r) => r.body.includes('"sms.'));
    assert.equal(deliveries.length, 2);
    const verified = deliveries.map((req) => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const event = new StandardWebhook(secret).verify(req.body, headers) as {
        event: 'sms.sent' | 'sms.received';
      };
      eventEnvelopeSchemas[event.event].parse(event);
      ctx.diagnostic(`receiver: ${req.headers['webhook-id']} verified by standardwebhooks: ${req.body}`);
      return event as { event: string; data: Record<string, unknown> };
    });
    const byType = Object.fromEntries(verified.map((e) => [e.event, e.data]));
    assert.deepEqual(
      [byType['sms.sent']?.status, byType['sms.sent']?.message_id, byType['sms.sent']?.external_id],
      ['delivered', sent.body.id, 'booking-1234'],
    );
    assert.deepEqual(
      [byType['sms.received']?.from, byType['sms.received']?.to, byType['sms.received']?.body],
      [CUSTOMER_NUMBER, ASSISTANT_NUMBER, 'Perfect, see you then!'],
    );
    const tampered = deliveries[0]?.body.replace('"sms.', '"smz.') ?? '';
    const headers = Object.fromEntries(
      Object.entries(deliveries[0]?.headers ?? {}).map(([k, v]) => [k, String(v)]),
    );
    assert.throws(() => new StandardWebhook(secret).verify(tampered, headers), /No matching signature/);
  });
});
