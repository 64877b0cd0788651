import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { callFor, emitEvent } from '../testing/webhook.fixtures.ts';
import { claimDue } from './deliveries.repository.ts';

const LEASE_MS = 60_000;

describe('claimDue takes each subscription by its own room, whatever backlog another has', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  /** A customer with one subscription and `n` due deliveries to it, each due 1 ms after the one before. */
  async function backlog(n: number, path: string) {
    const c = await newCustomer(t);
    const res = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: c.key,
      body: { url: `https://hooks.example.com/${path}`, events: ['call.completed'] },
    });
    assert.equal(res.status, 201, res.text);
    const { callId } = await callFor(t, c.customerId);
    for (let i = 0; i < n; i++) {
      await emitEvent(t, c.customerId, callId);
      t.clock.advance(1);
    }
    return res.body.id as string;
  }

  const countBySubscription = (claimed: { subscription_id: string }[]) => {
    const by = new Map<string, number>();
    for (const d of claimed) by.set(d.subscription_id, (by.get(d.subscription_id) ?? 0) + 1);
    return by;
  };

  it('fills the free slots from the others when one backlog, due first, is far longer than the claim', async () => {
    // The old claim read the oldest 4 × limit due rows and kept each subscription's first few: a backlog longer
    // than that, all due first, left every other subscription out of the claim however many slots were free.
    const first = await backlog(60, 'first');
    const second = await backlog(5, 'second');
    const third = await backlog(5, 'third');
    const claimed = await claimDue(t.db, t.clock.now(), { limit: 12, rooms: new Map(), others: 4 }, LEASE_MS);
    const by = countBySubscription(claimed);
    assert.equal(claimed.length, 12);
    assert.deepEqual(
      [by.get(first), by.get(second), by.get(third)],
      [4, 4, 4],
      'each takes its room of 4, oldest first within each',
    );
    const firstDue = claimed
      .filter((d) => d.subscription_id === first)
      .map((d) => d.next_attempt_at.getTime());
    assert.deepEqual(
      firstDue,
      [...firstDue].sort((a, b) => a - b),
    );
  });

  it('takes nothing from a subscription without room, and passes over what is leased', async () => {
    const held = await backlog(30, 'held');
    const open = await backlog(6, 'open');
    const now = t.clock.now();
    const rooms = new Map([
      [held, 0],
      [open, 3],
    ]);
    const once = await claimDue(t.db, now, { limit: 10, rooms, others: 0 }, LEASE_MS);
    assert.deepEqual([...countBySubscription(once)], [[open, 3]]);
    const again = await claimDue(t.db, now, { limit: 10, rooms, others: 0 }, LEASE_MS);
    assert.deepEqual([...countBySubscription(again)], [[open, 3]], 'the next three, not the leased ones');
    assert.equal(new Set([...once, ...again].map((d) => d.id)).size, 6);
    const third = await claimDue(t.db, now, { limit: 10, rooms, others: 0 }, LEASE_MS);
    assert.equal(third.length, 0);
  });

  it('keeps to the limit, oldest first across subscriptions', async () => {
    const older = await backlog(3, 'older');
    const newer = await backlog(3, 'newer');
    const claimed = await claimDue(
      t.db,
      t.clock.now(),
      {
        limit: 4,
        rooms: new Map([
          [older, 10],
          [newer, 10],
        ]),
        others: 0,
      },
      LEASE_MS,
    );
    assert.deepEqual(
      claimed.map((d) => d.subscription_id).sort(),
      [older, older, older, newer].sort(),
      'the three older ones and the oldest newer one',
    );
  });

  it('leases each row where it lies: a claim is a heap-only update, with no new index entries', async () => {
    // The outbox keeps room on each page (fillfactor 70, migration 20261126_0100) for a claim's new versions: filled
    // to the brim, the new version of each claimed row went to another page, with an entry in each of its six
    // indexes. An update that changes no indexed column and stays on its page is heap-only.
    const id = await backlog(200, 'hot');
    const pages = async () =>
      new Map(
        (
          await sql<{ id: string; ctid: string }>`
            select id, ctid::text from webhook_deliveries where subscription_id = ${id}`.execute(t.db)
        ).rows.map((r) => [r.id, r.ctid.slice(1).split(',')[0]]),
      );
    const before = await pages();
    const claimed = await claimDue(
      t.db,
      t.clock.now(),
      { limit: 10, rooms: new Map([[id, 10]]), others: 0 },
      LEASE_MS,
    );
    const after = await pages();
    assert.equal(claimed.length, 10);
    const moved = claimed.filter((d) => before.get(d.id) !== after.get(d.id));
    assert.deepEqual(moved, [], 'every claimed row still on its page');
  });
});
