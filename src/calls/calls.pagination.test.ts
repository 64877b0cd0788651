import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { NewCall } from '../db/tables/calls.table.ts';
import { newUuid } from '../ids.ts';
import { expectedOrder, makeAssistants, makeCalls, walkCalls } from '../testing/calls.fixtures.ts';
import { newCustomer, startTestApp, type TestApp, type TestCustomer } from '../testing/test-app.ts';
import { insertCalls } from './calls.repository.ts';

describe('GET /calls pagination', () => {
  let t: TestApp;
  let c: TestCustomer;
  let rows: NewCall[];
  before(async () => {
    t = await startTestApp();
    c = await newCustomer(t);
    const assistants = await makeAssistants(t, c.customerId, 2);
    rows = await makeCalls(t, c.customerId, assistants, 88);
    // Ties on started_at: the order falls back to id, and no page boundary may lose or repeat one.
    const tied = rows
      .slice(0, 12)
      .map((r) => ({ ...r, id: newUuid(), started_at: new Date('2026-01-05T00:00:00Z') }));
    await insertCalls(t.db, tied);
    rows.push(...tied);
  });
  after(() => t.close());

  for (const mode of ['cursor', 'page'] as const) {
    it(`walks every call exactly once, in order, by ${mode}`, async () => {
      const walk = await walkCalls(t, c.key, { mode, limit: 10 });
      assert.deepEqual(walk.ids, expectedOrder(rows));
      // 100 calls, 10 a page: the tenth page is full and is the last (no empty eleventh request).
      assert.equal(walk.requests, 10);
      assert.equal(walk.cursors.at(-1), null);
      assert.ok(walk.cursors.slice(0, -1).every((x) => typeof x === 'string'));
    });
  }

  it('one page of the maximum size holds all 100 calls, with a null cursor', async () => {
    const res = await t.request('GET', '/api/v1/calls?limit=100', { key: c.key });
    assert.equal(res.body.data.length, 100);
    assert.equal(res.body.next_cursor, null);
  });

  it('a page past the end is empty with a null cursor', async () => {
    const res = await t.request('GET', '/api/v1/calls?limit=100&page=5', { key: c.key });
    assert.deepEqual(res.body, { data: [], next_cursor: null });
  });

  it('the limit may change from one page to the next', async () => {
    const first = await t.request('GET', '/api/v1/calls?limit=7', { key: c.key });
    const second = await t.request('GET', `/api/v1/calls?limit=30&cursor=${first.body.next_cursor}`, {
      key: c.key,
    });
    const got = [...first.body.data, ...second.body.data].map((x: { id: string }) => x.id);
    assert.deepEqual(got, expectedOrder(rows).slice(0, 37));
  });

  it('when both cursor and page are sent, cursor wins', async () => {
    const first = await t.request('GET', '/api/v1/calls?limit=5', { key: c.key });
    const cursorOnly = await t.request('GET', `/api/v1/calls?limit=5&cursor=${first.body.next_cursor}`, {
      key: c.key,
    });
    const both = await t.request('GET', `/api/v1/calls?limit=5&page=7&cursor=${first.body.next_cursor}`, {
      key: c.key,
    });
    assert.deepEqual(both.body, cursorOnly.body);
    assert.deepEqual(
      both.body.data.map((x: { id: string }) => x.id),
      expectedOrder(rows).slice(5, 10),
    );
  });

  it('a page request also returns a next_cursor that continues after it', async () => {
    const page2 = await t.request('GET', '/api/v1/calls?limit=10&page=2', { key: c.key });
    const next = await t.request('GET', `/api/v1/calls?limit=10&cursor=${page2.body.next_cursor}`, {
      key: c.key,
    });
    assert.deepEqual(
      next.body.data.map((x: { id: string }) => x.id),
      expectedOrder(rows).slice(30, 40),
    );
  });

  it('keeps filters across pages', async () => {
    const walk = await walkCalls(t, c.key, { mode: 'cursor', limit: 4, query: 'direction=outbound' });
    assert.deepEqual(walk.ids, expectedOrder(rows.filter((r) => r.direction === 'outbound')));
  });

  it('orders calls apart by microseconds, as stored', async () => {
    const other = await newCustomer(t);
    const [a] = await makeAssistants(t, other.customerId, 1);
    assert.ok(a);
    const [base] = await makeCalls(t, other.customerId, [a], 1);
    assert.ok(base);
    const ids = [1, 2, 3, 4].map(() => newUuid());
    await insertCalls(
      t.db,
      ids.map((id) => ({ ...base, id })),
    );
    // Same millisecond, microseconds descending with the ids ascending: id order alone would be wrong.
    const sortedIds = [...ids].sort();
    for (const [i, id] of sortedIds.entries()) {
      await t.db
        .updateTable('calls')
        .set({ started_at: sql<Date>`${`2026-01-10T00:00:00.00${9 - i}Z`}::timestamptz` })
        .where('id', '=', id)
        .execute();
    }
    const walk = await walkCalls(t, other.key, {
      mode: 'cursor',
      limit: 1,
      query: 'from=2026-01-10T00:00:00Z&to=2026-01-10T00:00:01Z',
    });
    assert.deepEqual(walk.ids, sortedIds);
  });
});
