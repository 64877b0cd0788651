import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Receiver, startReceiver } from '../testing/receiver.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { callFor, emitEvent, testWorker } from '../testing/webhook.fixtures.ts';
import { purgeExpired } from './retention.ts';

const SECRET = 'retention-test-secret-0123456789abcdef';
const DAY = 86_400_000;

describe('retention', () => {
  let t: TestApp;
  let receiver: Receiver;
  before(async () => {
    t = await startTestApp({ serverSecret: SECRET });
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  it('drops the delivery log and auth failures past retention, never pending deliveries', async () => {
    const { worker, close } = testWorker(t, SECRET);
    const c = await newCustomer(t);
    const sub = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: c.key,
      body: { url: `${receiver.url}/r`, events: ['call.completed'] },
    });
    try {
      const { callId } = await callFor(t, c.customerId);
      receiver.reply = (_req, i) => ({ status: i === 0 ? 200 : 500 });
      await emitEvent(t, c.customerId, callId);
      await worker.drain();
      await emitEvent(t, c.customerId, callId);
      await worker.drain(); // fails, stays pending
      await t.request('GET', '/api/v1/auth/whoami', { key: 'svc_live_nope' });

      const count = async () => {
        const d = await t.db
          .selectFrom('webhook_deliveries')
          .select('status')
          .where('subscription_id', '=', sub.body.id)
          .execute();
        const a = await t.db
          .selectFrom('webhook_attempts')
          .select('id')
          .where('subscription_id', '=', sub.body.id)
          .execute();
        return {
          delivered: d.filter((x) => x.status === 'delivered').length,
          pending: d.filter((x) => x.status === 'pending').length,
          attempts: a.length,
        };
      };
      assert.deepEqual(await count(), { delivered: 1, pending: 1, attempts: 2 });

      const policy = { webhookLogDays: 30, authFailureDays: 30 };
      await purgeExpired(t.db, new Date(t.clock.now().getTime() + 29 * DAY), policy);
      assert.deepEqual(
        await count(),
        { delivered: 1, pending: 1, attempts: 2 },
        'nothing before retention ends',
      );

      const purged = await purgeExpired(t.db, new Date(t.clock.now().getTime() + 31 * DAY), policy);
      assert.deepEqual(await count(), { delivered: 0, pending: 1, attempts: 0 });
      assert.ok(purged.authFailures >= 1);
    } finally {
      await close();
      // The pending delivery this test keeps must not be claimed by another test's worker in the shared database.
      await t.request('DELETE', `/api/v1/webhook-subscriptions/${sub.body.id}`, { key: c.key });
    }
  });
});
