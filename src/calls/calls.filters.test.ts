import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { NewCall } from '../db/tables/calls.table.ts';
import { newUuid } from '../ids.ts';
import { expectedOrder, makeAssistants, makeCalls } from '../testing/calls.fixtures.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { insertCalls } from './calls.repository.ts';

const ids = (body: { data: { id: string }[] }) => body.data.map((x) => x.id);

describe('GET /calls filters', () => {
  let t: TestApp;
  let key: string;
  let rows: NewCall[];
  let assistantIds: string[];
  before(async () => {
    t = await startTestApp();
    const c = await newCustomer(t);
    key = c.key;
    const assistants = await makeAssistants(t, c.customerId, 3);
    assistantIds = assistants.map((a) => a.id);
    rows = await makeCalls(t, c.customerId, assistants, 80, 20);
  });
  after(() => t.close());

  const get = (query: string) => t.request('GET', `/api/v1/calls?limit=100&${query}`, { key });

  it('filters by direction', async () => {
    for (const direction of ['inbound', 'outbound'] as const) {
      const res = await get(`direction=${direction}`);
      assert.equal(res.status, 200);
      const expected = expectedOrder(rows.filter((r) => r.direction === direction));
      assert.ok(expected.length > 0);
      assert.deepEqual(ids(res.body), expected);
    }
  });

  it('filters by status: one, several (comma-separated), and with direction', async () => {
    const present = [...new Set(rows.map((r) => r.status))];
    assert.ok(present.length >= 3, `the fixture has several statuses: ${present}`);
    for (const status of present) {
      const res = await get(`status=${status}`);
      assert.equal(res.status, 200);
      const expected = expectedOrder(rows.filter((r) => r.status === status));
      assert.ok(expected.length > 0 && expected.length < rows.length);
      assert.deepEqual(ids(res.body), expected);
    }
    const [a = '', b = ''] = present;
    const several = await get(`status=${b},${a}`);
    assert.deepEqual(ids(several.body), expectedOrder(rows.filter((r) => r.status === a || r.status === b)));
    const withDirection = await get(`status=${a}&direction=inbound`);
    assert.deepEqual(
      ids(withDirection.body),
      expectedOrder(rows.filter((r) => r.status === a && r.direction === 'inbound')),
    );
    const none = await get('status=queued');
    assert.deepEqual(ids(none.body), expectedOrder(rows.filter((r) => r.status === 'queued')));
  });

  it('a status cursor continues only its own list; the same set in another order is the same list', async () => {
    const first = await t.request('GET', '/api/v1/calls?limit=3&status=completed,no_answer', { key });
    assert.equal(first.status, 200);
    const cursor = first.body.next_cursor;
    assert.ok(cursor);
    const reordered = await t.request(
      'GET',
      `/api/v1/calls?limit=3&status=no_answer,completed&cursor=${cursor}`,
      {
        key,
      },
    );
    assert.equal(reordered.status, 200);
    const expected = expectedOrder(rows.filter((r) => r.status === 'completed' || r.status === 'no_answer'));
    assert.deepEqual(ids(reordered.body), expected.slice(3, 6));
    for (const other of ['status=completed', '', 'status=completed,no_answer,failed']) {
      const res = await t.request('GET', `/api/v1/calls?limit=3&${other}&cursor=${cursor}`, { key });
      assert.equal(res.status, 422, other);
      assert.equal(res.body.code, 'input.invalid');
      assert.deepEqual(res.body.issues[0].path, ['query', 'cursor']);
    }
  });

  it('filters by assistant_id, alone and with direction', async () => {
    const assistantId = assistantIds[1] ?? '';
    const res = await get(`assistant_id=${assistantId}`);
    assert.deepEqual(ids(res.body), expectedOrder(rows.filter((r) => r.assistant_id === assistantId)));
    const both = await get(`assistant_id=${assistantId}&direction=outbound`);
    assert.deepEqual(
      ids(both.body),
      expectedOrder(rows.filter((r) => r.assistant_id === assistantId && r.direction === 'outbound')),
    );
  });

  it("an assistant_id that is not the caller's filters to an empty list, like one without calls", async () => {
    const stranger = await newCustomer(t);
    const [theirs] = await makeAssistants(t, stranger.customerId, 1);
    assert.ok(theirs);
    await makeCalls(t, stranger.customerId, [theirs], 5);
    for (const id of [theirs.id, newUuid()]) {
      const res = await get(`assistant_id=${id}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { data: [], next_cursor: null });
    }
  });

  it('from and to are inclusive bounds on started_at, in any UTC offset', async () => {
    const sorted = [...rows].sort(
      (a, b) => +new Date(a.started_at as Date) - +new Date(b.started_at as Date),
    );
    const low = new Date((sorted[20]?.started_at ?? 0) as Date);
    const high = new Date((sorted[60]?.started_at ?? 0) as Date);
    const inside = rows.filter((r) => {
      const at = new Date(r.started_at as Date);
      return at >= low && at <= high;
    });
    const res = await get(`from=${low.toISOString()}&to=${high.toISOString()}`);
    assert.equal(res.status, 200);
    assert.deepEqual(ids(res.body), expectedOrder(inside));
    assert.ok(ids(res.body).includes(sorted[20]?.id ?? ''), 'the lower bound itself is included');
    assert.ok(ids(res.body).includes(sorted[60]?.id ?? ''), 'the upper bound itself is included');

    // The same instants written with offsets (+ encoded as %2B) select the same calls.
    const shifted = (d: Date, hours: number) => {
      const local = new Date(d.getTime() + hours * 3_600_000).toISOString().slice(0, 23);
      const sign = hours < 0 ? '-' : '%2B';
      return `${local}${sign}${String(Math.abs(hours)).padStart(2, '0')}:00`;
    };
    const offsetRes = await get(`from=${shifted(low, -5)}&to=${shifted(high, 9)}`);
    assert.deepEqual(ids(offsetRes.body), ids(res.body));

    const justAfter = new Date(high.getTime() + 1).toISOString();
    const fromOnly = await get(`from=${justAfter}`);
    assert.ok(!ids(fromOnly.body).includes(sorted[60]?.id ?? ''));
  });

  it('bounds are exact to the microsecond', async () => {
    const c = await newCustomer(t);
    const [a] = await makeAssistants(t, c.customerId, 1);
    assert.ok(a);
    const [base] = await makeCalls(t, c.customerId, [a], 1);
    assert.ok(base);
    await t.db.deleteFrom('calls').where('id', '=', base.id).execute();
    const extra = ['000001', '000002', '000003'].map((us) => ({ id: newUuid(), us }));
    await insertCalls(
      t.db,
      extra.map((e) => ({ ...base, id: e.id, started_at: new Date('2026-01-10T00:00:00Z') })),
    );
    for (const e of extra) {
      await t.db
        .updateTable('calls')
        .set({ started_at: sql<Date>`${`2026-01-10T00:00:00.${e.us}Z`}::timestamptz` })
        .where('id', '=', e.id)
        .execute();
    }
    const res = await t.request(
      'GET',
      '/api/v1/calls?from=2026-01-10T00:00:00.000002Z&to=2026-01-10T00:00:00.000002Z',
      { key: c.key },
    );
    assert.deepEqual(ids(res.body), [extra[1]?.id]);
    // Nanoseconds round inwards: from .0000015 starts at .000002, to .0000025 ends at .000002.
    const nanos = await t.request(
      'GET',
      '/api/v1/calls?from=2026-01-10T00:00:00.0000015Z&to=2026-01-10T00:00:00.0000025Z',
      { key: c.key },
    );
    assert.deepEqual(ids(nanos.body), [extra[1]?.id]);
  });

  it("a space where the offset's + should be (an unencoded +) is read as +", async () => {
    const res = await get('from=2026-01-01T00:00:00+02:00');
    assert.equal(res.status, 200);
    const encoded = await get('from=2026-01-01T00:00:00%2B02:00');
    assert.deepEqual(res.body, encoded.body);
  });
});
