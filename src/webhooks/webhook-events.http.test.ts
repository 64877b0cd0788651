import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Receiver, startReceiver } from '../testing/receiver.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import type { DeliveryWorker } from './delivery-worker.ts';
import { callFor, emitEvent, testWorker } from './webhook-fixtures.ts';

const SECRET = 'events-test-secret-0123456789abcdef';

describe('events API and redelivery', () => {
  let t: TestApp;
  let worker: DeliveryWorker;
  let closeWorker: () => Promise<void>;
  let receiver: Receiver;
  before(async () => {
    t = await startTestApp({ serverSecret: SECRET });
    ({ worker, close: closeWorker } = testWorker(t, SECRET));
    receiver = await startReceiver();
  });
  after(async () => {
    await closeWorker();
    await receiver.close();
    await t.close();
  });

  async function setup() {
    const c = await newCustomer(t);
    const sub = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: c.key,
      body: { url: `${receiver.url}/${c.customerId}`, events: ['call.completed', 'call.insight.received'] },
    });
    const { callId } = await callFor(t, c.customerId);
    return { ...c, subId: sub.body.id as string, callId };
  }

  it('lists events newest first with deliveries and attempts; pages with a cursor bound to its filters', async () => {
    const c = await setup();
    for (let i = 0; i < 5; i++) {
      await emitEvent(t, c.customerId, c.callId, i % 2 ? 'call.insight.received' : 'call.completed');
      t.clock.advance(1000);
    }
    await worker.drain();
    const first = await t.request('GET', '/api/v1/webhook-events?limit=2', { key: c.key });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.data.length, 2);
    assert.deepEqual(
      first.body.data.map((e: { sequence: number }) => e.sequence),
      [5, 4],
    );
    const [newest] = first.body.data;
    assert.equal(newest.call_id, c.callId);
    assert.equal(newest.deliveries[0].status, 'delivered');
    assert.equal(newest.deliveries[0].attempt_log[0].status_code, 200);
    const seen = first.body.data.map((e: { id: string }) => e.id);
    let cursor = first.body.next_cursor;
    while (cursor) {
      const page = await t.request(
        'GET',
        `/api/v1/webhook-events?limit=2&cursor=${encodeURIComponent(cursor)}`,
        { key: c.key },
      );
      seen.push(...page.body.data.map((e: { id: string }) => e.id));
      cursor = page.body.next_cursor;
    }
    assert.equal(new Set(seen).size, 5);

    const filtered = await t.request('GET', '/api/v1/webhook-events?type=call.completed', { key: c.key });
    assert.equal(filtered.body.data.length, 3);
    const mismatched = await t.request(
      'GET',
      `/api/v1/webhook-events?type=call.completed&cursor=${encodeURIComponent(first.body.next_cursor)}`,
      { key: c.key },
    );
    assert.equal(mismatched.status, 422);
    assert.deepEqual(mismatched.body.issues[0].path, ['query', 'cursor']);
  });

  it('never shows another customer their events, and refuses their cursors', async () => {
    const a = await setup();
    const b = await setup();
    await emitEvent(t, a.customerId, a.callId);
    await emitEvent(t, a.customerId, a.callId);
    const listA = await t.request('GET', '/api/v1/webhook-events?limit=1', { key: a.key });
    const listB = await t.request('GET', '/api/v1/webhook-events', { key: b.key });
    assert.equal(listB.body.data.length, 0);
    const stolen = await t.request(
      'GET',
      `/api/v1/webhook-events?cursor=${encodeURIComponent(listA.body.next_cursor)}`,
      { key: b.key },
    );
    assert.equal(stolen.status, 422);
    const redeliver = await t.request('POST', `/api/v1/webhook-events/${listA.body.data[0].id}/redeliver`, {
      key: b.key,
      body: {},
    });
    assert.equal(redeliver.status, 404);
  });

  it('redelivers one event on request, as a new delivery with the same event id', async () => {
    const c = await setup();
    const event = await emitEvent(t, c.customerId, c.callId);
    await worker.drain();
    const before = receiver.received.filter((r) => r.body.includes(event.id)).length;
    const res = await t.request('POST', `/api/v1/webhook-events/${event.id}/redeliver`, {
      key: c.key,
      body: {},
    });
    assert.deepEqual([res.status, res.body], [202, { scheduled: 1 }]);
    await worker.drain();
    const copies = receiver.received.filter((r) => r.body.includes(event.id));
    assert.equal(copies.length, before + 1);
    assert.equal(
      copies[0]?.body,
      copies[copies.length - 1]?.body,
      'the same body: receivers de-duplicate on id',
    );
  });

  it('catches a subscription up with everything since T after it was disabled', async () => {
    const c = await setup();
    await t.services.subscriptions.setActive(c.customerId, c.subId, false);
    const since = t.clock.now().toISOString();
    await emitEvent(t, c.customerId, c.callId);
    await emitEvent(t, c.customerId, c.callId, 'call.insight.received');
    await worker.drain();
    const mine = () => receiver.received.filter((r) => r.body.includes(c.callId)).length;
    assert.equal(mine(), 0, 'nothing while disabled');
    await t.services.subscriptions.setActive(c.customerId, c.subId, true);
    const res = await t.request('POST', `/api/v1/webhook-subscriptions/${c.subId}/redeliver`, {
      key: c.key,
      body: { since },
    });
    assert.deepEqual([res.status, res.body], [202, { scheduled: 2 }]);
    await worker.drain();
    assert.equal(mine(), 2);
    const bad = await t.request('POST', `/api/v1/webhook-subscriptions/${c.subId}/redeliver`, {
      key: c.key,
      body: { since: 'yesterday' },
    });
    assert.equal(bad.status, 422);
  });
});
