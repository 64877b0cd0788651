import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createWebhookSender, type WebhookSender } from '../delivery/http-sender.ts';
import { createLogger } from '../logger.ts';
import { advance, newCaller, placeCall } from '../testing/outbound.fixtures.ts';
import { type Receiver, startReceiver } from '../testing/receiver.ts';
import { startTestApp, type TestApp, testCertificate } from '../testing/test-app.ts';
import { type CallbackDelivery, createCallbackDelivery } from './callback-delivery.ts';

describe('callback_url notifications', () => {
  let t: TestApp;
  let receiver: Receiver;
  let sender: WebhookSender;
  let delivery: CallbackDelivery;
  before(async () => {
    t = await startTestApp();
    receiver = await startReceiver(await testCertificate());
    sender = createWebhookSender({ timeoutMs: 500, allowHttp: false, allowPrivateTargets: true, ca: t.cert });
    delivery = createCallbackDelivery({
      db: t.db,
      clock: t.clock,
      sender,
      secrets: t.services.callbackSecrets,
      logger: createLogger('silent'),
      leaseMs: 5_000,
      random: () => 0.5,
    });
  });
  after(async () => {
    await sender.close();
    await receiver.close();
    await t.close();
  });

  it('delivers the lifecycle in order, signed with the customer callback secret, retrying a failure', async () => {
    const caller = await newCaller(t);
    const placed = await placeCall(t, caller, { callback_url: `${receiver.url}/cb`, external_id: 'crm-42' });
    assert.equal(placed.status, 201, placed.text);
    const callId: string = placed.body.id;
    let failOnce = true;
    receiver.reply = () => {
      if (failOnce) {
        failOnce = false;
        return { status: 500 };
      }
      return { status: 204 };
    };
    for (let i = 0; i < 40; i++) {
      await advance(t, 15);
      await delivery.runOnce();
    }
    const mine = receiver.received.filter((r) => r.body.includes(callId));
    const { secret } = await t.services.callbackSecrets.secretFor(caller.customerId);
    for (const r of mine) {
      const expected = createHmac('sha256', secret)
        .update(`${r.headers['x-svc-timestamp']}.${r.body}`)
        .digest('hex');
      assert.equal(r.headers['x-svc-signature-256'], expected);
      // No subscription sends it: the customer's one callback secret signs every call's notifications.
      assert.equal(r.headers['x-svc-subscription-id'], undefined);
    }
    // Order of arrival is best-effort (the failed first one came later); `sequence` restores it.
    const delivered = mine
      .slice(1)
      .map((r) => JSON.parse(r.body) as { event: string; sequence: number; data: { external_id: string } })
      .sort((a, b) => a.sequence - b.sequence);
    assert.deepEqual(
      delivered.map((b) => b.event),
      ['call.queued', 'call.ringing', 'call.answered', 'call.ended'],
    );
    assert.deepEqual(
      delivered.map((b) => b.sequence),
      [1, 2, 3, 4],
    );
    assert.equal(delivered[0]?.data.external_id, 'crm-42');
    assert.equal(
      mine.filter((r) => r.body === mine[0]?.body).length,
      2,
      'the failed first attempt was retried with the same body',
    );
    const states = await t.db
      .selectFrom('callback_notifications')
      .select('state')
      .where('call_id', '=', callId)
      .execute();
    assert.ok(states.every((s) => s.state === 'delivered'));
  });
});
