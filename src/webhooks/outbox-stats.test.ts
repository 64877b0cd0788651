import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../clock.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { callFor, emitEvent } from '../testing/webhook.fixtures.ts';
import { outboxStats } from './outbox-stats.ts';

// The test database is shared: this test's deliveries are dated in 2001, and the stats read at a clock there,
// where no other test's delivery is due.
const T0 = new Date('2001-01-01T00:00:00Z');
const READ_AT = new ManualClock(new Date(T0.getTime() + 90_000));

describe('outbox stats count what waits for a worker', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  /** One pending delivery, due at T0, to a new subscription that `change` then alters. */
  async function oneDelivery(change: (ids: { subscription: string; delivery: string }) => Promise<unknown>) {
    const c = await newCustomer(t);
    const sub = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: c.key,
      body: { url: 'http://127.0.0.1:9/stats', events: ['call.completed'] },
    });
    assert.equal(sub.status, 201, sub.text);
    const { callId } = await callFor(t, c.customerId);
    const event = await emitEvent(t, c.customerId, callId);
    const row = await t.db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: T0 })
      .where('event_id', '=', event.id)
      .returning('id')
      .executeTakeFirstOrThrow();
    await change({ subscription: sub.body.id, delivery: row.id });
    return row.id;
  }

  const cases: [string, boolean, (ids: { subscription: string; delivery: string }) => Promise<unknown>][] = [
    ['an active subscription’s due delivery', true, async () => {}],
    [
      'one being sent (leased)',
      true,
      ({ delivery }) =>
        t.db
          .updateTable('webhook_deliveries')
          .set({ leased_until: new Date('2030-01-01') })
          .where('id', '=', delivery)
          .execute(),
    ],
    [
      'a disabled subscription’s',
      false,
      ({ subscription }) =>
        t.db
          .updateTable('webhook_subscriptions')
          .set({ is_active: false, disabled_at: T0 })
          .where('id', '=', subscription)
          .execute(),
    ],
    [
      'a deleted subscription’s',
      false,
      ({ subscription }) =>
        t.db
          .updateTable('webhook_subscriptions')
          .set({ deleted_at: T0 })
          .where('id', '=', subscription)
          .execute(),
    ],
    [
      'a delivered one',
      false,
      ({ delivery }) =>
        t.db
          .updateTable('webhook_deliveries')
          .set({ status: 'delivered' })
          .where('id', '=', delivery)
          .execute(),
    ],
    [
      'one not due yet',
      false,
      ({ delivery }) =>
        t.db
          .updateTable('webhook_deliveries')
          .set({ next_attempt_at: new Date(T0.getTime() + 120_000) })
          .where('id', '=', delivery)
          .execute(),
    ],
  ];
  for (const [what, counted, change] of cases)
    it(`${counted ? 'counts' : 'leaves out'} ${what}`, async () => {
      const id = await oneDelivery(change);
      const stats = await outboxStats(t.db, READ_AT);
      assert.equal(stats.due, counted ? 1 : 0);
      assert.equal(stats.oldestDueSeconds, counted ? 90 : 0);
      // Out of the way of the next case.
      await t.db.updateTable('webhook_deliveries').set({ status: 'failed' }).where('id', '=', id).execute();
    });
});
