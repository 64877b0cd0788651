import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { type Receiver, startReceiver } from '../testing/receiver.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { callFor, emitEvent, testWorker } from '../testing/webhook.fixtures.ts';

const SERVER_SECRET = 'contention-test-secret-0123456789abcdef';

describe('successful deliveries do not contend on their subscription', () => {
  let t: TestApp;
  let receiver: Receiver;
  before(async () => {
    t = await startTestApp({ serverSecret: SERVER_SECRET });
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  const version = async (id: string) =>
    (
      await sql<{ v: string }>`select xmin::text as v from webhook_subscriptions where id = ${id}`.execute(
        t.db,
      )
    ).rows[0]?.v;

  it('a success leaves the subscription row untouched when it has no failures to reset, and resets them when it has', async () => {
    const c = await newCustomer(t);
    const res = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: c.key,
      body: { url: `${receiver.url}/c`, events: ['call.completed'] },
    });
    assert.equal(res.status, 201);
    const id: string = res.body.id;
    const { callId } = await callFor(t, c.customerId);
    const { worker, close } = testWorker(t, SERVER_SECRET);
    try {
      const before = await version(id);
      for (let i = 0; i < 3; i++) await emitEvent(t, c.customerId, callId);
      await worker.drain();
      assert.equal(receiver.received.length, 3);
      assert.equal(await version(id), before, 'no write (and so no row lock) on the subscription');

      await t.db
        .updateTable('webhook_subscriptions')
        .set({ consecutive_failures: 4 })
        .where('id', '=', id)
        .execute();
      await emitEvent(t, c.customerId, callId);
      await worker.drain();
      const row = await t.db
        .selectFrom('webhook_subscriptions')
        .select('consecutive_failures')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.equal(row.consecutive_failures, 0, 'a success still resets the count');
    } finally {
      await close();
    }
  });
});
