import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { notify } from '../db/notifications.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { testDatabase } from '../testing/test-database.ts';
import { callFor } from '../testing/webhook.fixtures.ts';
import { type NewEvent, recordEvents } from './events.repository.ts';

describe('recording events with their outbox rows in one statement', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  async function subscribe(key: string, path: string, events: string[]) {
    const res = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key,
      body: { url: `http://127.0.0.1:9/${path}`, events },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.id as string;
  }

  it('numbers each call’s events in the order given, after the ones it had, and fans out to each active subscription', async () => {
    const c = await newCustomer(t);
    const completed = await subscribe(c.key, 'completed', ['call.completed']);
    const both = await subscribe(c.key, 'both', ['call.completed', 'call.insight.received']);
    const disabled = await subscribe(c.key, 'disabled', ['call.completed']);
    await t.services.subscriptions.setActive(c.customerId, disabled, false);
    const one = await callFor(t, c.customerId, 1);
    const two = await callFor(t, c.customerId, 2);
    const event = (callId: string, type: NewEvent['type'], n: number): NewEvent => ({
      customerId: c.customerId,
      type,
      callId,
      data: { call_id: callId, n },
      occurredAt: t.clock.now(),
    });
    await t.db.transaction().execute((tx) => recordEvents(tx, [event(one.callId, 'call.completed', 0)]));
    const rows = await t.db
      .transaction()
      .execute((tx) =>
        recordEvents(tx, [
          event(one.callId, 'call.insight.received', 1),
          event(two.callId, 'call.completed', 2),
          event(one.callId, 'call.completed', 3),
          event(two.callId, 'call.insight.received', 4),
        ]),
      );
    assert.deepEqual(
      rows.map((r) => [r.call_id, (r.data as { n: number }).n, r.sequence]),
      [
        [one.callId, 1, 2],
        [two.callId, 2, 1],
        [one.callId, 3, 3],
        [two.callId, 4, 2],
      ],
    );
    const deliveries = await t.db
      .selectFrom('webhook_deliveries')
      .select(['event_id', 'subscription_id'])
      .where('customer_id', '=', c.customerId)
      .execute();
    const to = (sub: string) => deliveries.filter((d) => d.subscription_id === sub).length;
    assert.deepEqual([to(completed), to(both), to(disabled)], [3, 5, 0]);
  });

  it('gives events and their deliveries version-7 ids whose first 48 bits are the millisecond they were made', async () => {
    const c = await newCustomer(t);
    await subscribe(c.key, 'a', ['call.completed']);
    await subscribe(c.key, 'b', ['call.completed']);
    const { callId } = await callFor(t, c.customerId);
    const event: NewEvent = {
      customerId: c.customerId,
      type: 'call.completed',
      callId,
      data: { call_id: callId },
      occurredAt: t.clock.now(),
    };
    const before = Date.now();
    const [first] = await t.db.transaction().execute((tx) => recordEvents(tx, [event]));
    // A later millisecond for the second event, so the two are ordered by their time alone.
    while (Date.now() === before) await new Promise((r) => setTimeout(r, 1));
    const [second] = await t.db.transaction().execute((tx) => recordEvents(tx, [event]));
    const after = Date.now();
    const deliveries = await t.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'event_id'])
      .where('customer_id', '=', c.customerId)
      .execute();
    const ids = [first?.id ?? '', second?.id ?? '', ...deliveries.map((d) => d.id)];
    assert.equal(ids.length, 6);
    const millisecond = (id: string) => Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16);
    for (const id of ids) {
      assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, id);
      // PostgreSQL's clock and this process's are the same machine's.
      assert.ok(millisecond(id) >= before && millisecond(id) <= after, `${id} made outside the test`);
    }
    assert.ok((first?.id ?? '') < (second?.id ?? ''), 'the later event has the greater id');
    const of = (eventId: string | undefined) =>
      deliveries.filter((d) => d.event_id === eventId).map((d) => d.id);
    assert.ok(
      Math.max(...of(first?.id).map(millisecond)) <= Math.min(...of(second?.id).map(millisecond)),
      'the later event’s deliveries were made no earlier',
    );
  });

  it('wakes the delivery workers once per statement that queued a delivery, and not for one that queued none', async () => {
    const c = await newCustomer(t);
    const { callId } = await callFor(t, c.customerId);
    const { notifications } = await testDatabase();
    const heard: string[] = [];
    let sentinel: () => void = () => {};
    const done = new Promise<void>((r) => {
      sentinel = r;
    });
    let up: () => void = () => {};
    const listening = new Promise<void>((r) => {
      up = r;
    });
    const stop = notifications.listen(
      'webhook_deliveries_due',
      (payload) => (payload === 'sentinel' ? sentinel() : heard.push(payload)),
      () => up(),
    );
    if (!notifications.connected()) await listening;
    const record = () =>
      t.db
        .transaction()
        .execute((tx) =>
          recordEvents(tx, [
            { customerId: c.customerId, type: 'call.completed', callId, data: {}, occurredAt: t.clock.now() },
          ]),
        );
    await record();
    await subscribe(c.key, 'woken', ['call.completed']);
    await record();
    // Notifications arrive in commit order: once this one is heard, the two before it have been too.
    await notify(t.db, 'webhook_deliveries_due', 'sentinel');
    await done;
    stop();
    assert.deepEqual(heard, ['']);
  });

  it('refuses an event of a call that does not exist, recording none of the batch', async () => {
    const c = await newCustomer(t);
    const { callId } = await callFor(t, c.customerId);
    const missing = '00000000-0000-4000-8000-000000000001';
    const events: NewEvent[] = [callId, missing].map((id) => ({
      customerId: c.customerId,
      type: 'call.completed',
      callId: id,
      data: {},
      occurredAt: t.clock.now(),
    }));
    await assert.rejects(
      t.db.transaction().execute((tx) => recordEvents(tx, events)),
      /does not exist/,
    );
    const kept = await t.db
      .selectFrom('events')
      .select('id')
      .where('customer_id', '=', c.customerId)
      .execute();
    assert.equal(kept.length, 0);
  });
});
