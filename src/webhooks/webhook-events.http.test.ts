import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Receiver, startReceiver } from '../testing/receiver.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { callFor, emitEvent, testWorker } from '../testing/webhook.fixtures.ts';
import type { DeliveryWorker } from './delivery-worker.ts';
import { scheduleRedelivery } from './webhook-events.repository.ts';

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

  it('a catch-up re-sends what happened to calls, not test events sent from the dashboard', async () => {
    const c = await setup();
    await t.services.subscriptions.setActive(c.customerId, c.subId, false);
    const since = t.clock.now().toISOString();
    const test = await t.services.dashboard.sendTestEvent(c.customerId, c.subId);
    assert.equal(test.ok, true);
    await t.services.subscriptions.setActive(c.customerId, c.subId, true);
    const res = await t.request('POST', `/api/v1/webhook-subscriptions/${c.subId}/redeliver`, {
      key: c.key,
      body: { since },
    });
    assert.deepEqual([res.status, res.body], [202, { scheduled: 0 }]);
    const one = await t.request('POST', `/api/v1/webhook-events/${test.eventId}/redeliver`, {
      key: c.key,
      body: {},
    });
    assert.deepEqual([one.status, one.body], [202, { scheduled: 1 }], 'by its id it can still be sent again');
  });

  /** How many pending deliveries each event has for the subscription. */
  async function pendingPerEvent(subId: string): Promise<number[]> {
    const rows = await t.db
      .selectFrom('webhook_deliveries')
      .select(['event_id', (eb) => eb.fn.countAll<string>().as('n')])
      .where('subscription_id', '=', subId)
      .where('status', '=', 'pending')
      .groupBy('event_id')
      .execute();
    return rows.map((r) => Number(r.n));
  }

  /** A disabled subscription (so nothing is sent) and `n` events it missed since the returned time. */
  async function missedEvents(n: number) {
    const c = await setup();
    await t.services.subscriptions.setActive(c.customerId, c.subId, false);
    const since = t.clock.now().toISOString();
    for (let i = 0; i < n; i++) {
      await emitEvent(t, c.customerId, c.callId, i % 2 ? 'call.insight.received' : 'call.completed');
      t.clock.advance(1000);
    }
    const redeliver = () =>
      t.request('POST', `/api/v1/webhook-subscriptions/${c.subId}/redeliver`, {
        key: c.key,
        body: { since },
      });
    return { ...c, redeliver };
  }

  it('asking again for a catch-up queues nothing twice: one pending copy per event, however often asked', async () => {
    const c = await missedEvents(5);
    const scheduled: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await c.redeliver();
      assert.equal(res.status, 202);
      scheduled.push(res.body.scheduled);
    }
    assert.deepEqual(scheduled, [5, 0, 0], 'the response counts only what was queued');
    assert.deepEqual(await pendingPerEvent(c.subId), [1, 1, 1, 1, 1]);

    await t.services.subscriptions.setActive(c.customerId, c.subId, true);
    await worker.drain();
    assert.equal(receiver.received.filter((r) => r.body.includes(c.callId)).length, 5);
    assert.equal((await c.redeliver()).body.scheduled, 5, 'delivered events can be sent again');
  });

  it('catch-up requests racing each other queue every event once between them', async () => {
    const c = await missedEvents(6);
    const responses = await Promise.all(Array.from({ length: 4 }, () => c.redeliver()));
    assert.deepEqual(
      responses.map((r) => r.status),
      [202, 202, 202, 202],
    );
    assert.equal(
      responses.reduce((sum, r) => sum + r.body.scheduled, 0),
      6,
    );
    assert.deepEqual(await pendingPerEvent(c.subId), [1, 1, 1, 1, 1, 1]);
  });

  it('a catch-up bounded per request moves on past what is already pending when asked again', async () => {
    const c = await missedEvents(5);
    const batch = () =>
      scheduleRedelivery(t.db, {
        customerId: c.customerId,
        subscriptionId: c.subId,
        since: new Date(0),
        now: t.clock.now(),
        max: 2,
      });
    assert.deepEqual([await batch(), await batch(), await batch(), await batch()], [2, 2, 1, 0]);
    assert.deepEqual(await pendingPerEvent(c.subId), [1, 1, 1, 1, 1]);
  });

  it('redelivering one event that is still pending queues no second copy (202, scheduled 0, not 404)', async () => {
    const c = await missedEvents(1);
    const [event] = (await t.request('GET', '/api/v1/webhook-events', { key: c.key })).body.data;
    const redeliver = (body: Record<string, string>) =>
      t.request('POST', `/api/v1/webhook-events/${event.id}/redeliver`, { key: c.key, body });
    const first = await redeliver({});
    const again = await redeliver({});
    const named = await redeliver({ subscription_id: c.subId });
    assert.deepEqual(
      [first, again, named].map((r) => [r.status, r.body]),
      [
        [202, { scheduled: 1 }],
        [202, { scheduled: 0 }],
        [202, { scheduled: 0 }],
      ],
    );
    assert.deepEqual(await pendingPerEvent(c.subId), [1]);
    const other = await redeliver({ subscription_id: 'sub_0123456789abcdef01234567' });
    assert.equal(other.status, 404, 'a subscription that does not take the event is still not found');
  });

  it('a catch-up reaches back at most 7 days', async () => {
    const c = await setup();
    const now = t.clock.now().getTime();
    const cases = [
      { since: now - 7 * 86_400_000, status: 202 },
      { since: now - 3_600_000, status: 202 },
      { since: now - 7 * 86_400_000 - 1000, status: 422 },
      { since: now - 30 * 86_400_000, status: 422 },
    ];
    for (const { since, status } of cases) {
      const res = await t.request('POST', `/api/v1/webhook-subscriptions/${c.subId}/redeliver`, {
        key: c.key,
        body: { since: new Date(since).toISOString() },
      });
      assert.equal(res.status, status, new Date(since).toISOString());
      if (status === 422) {
        assert.equal(res.body.code, 'input.invalid');
        assert.match(res.body.detail, /at most 7 days/);
        assert.deepEqual(res.body.issues[0].path, ['body', 'since']);
      }
    }
  });
});
