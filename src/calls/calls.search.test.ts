import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NewCall } from '../db/tables/calls.table.ts';
import { newUuid } from '../ids.ts';
import { expectedOrder, makeAssistants, makeCalls, walkCalls } from '../testing/calls.fixtures.ts';
import { newCustomer, startTestApp, type TestApp, type TestCustomer } from '../testing/test-app.ts';
import { insertCalls } from './calls.repository.ts';

const ids = (body: { data: { id: string }[] }) => body.data.map((x) => x.id);
const ME = '+14155550177';
const OTHER = '+12125550123';

/** The search filters of GET /calls (issue 39): each alone, combined, within the customer, bound to the cursor. */
describe('GET /calls search filters', () => {
  let t: TestApp;
  let c: TestCustomer;
  let stranger: TestCustomer;
  let rows: NewCall[];
  let theirs: NewCall[];

  /** The same calls for two customers: every value the filters look at is found in both. */
  async function plant(customer: TestCustomer): Promise<NewCall[]> {
    const [a] = await makeAssistants(t, customer.customerId, 1);
    assert.ok(a);
    const base = await makeCalls(t, customer.customerId, [a], 30);
    const [first] = base;
    assert.ok(first);
    const at = (minutes: number) => new Date(t.clock.now().getTime() - minutes * 60_000);
    const variant = (minutes: number, over: Partial<NewCall>): NewCall => ({
      ...first,
      id: newUuid(),
      started_at: at(minutes),
      created_at: at(minutes),
      ...over,
    });
    const api = { direction: 'outbound' as const, api_initiated: true, from_number: ME };
    const planted = [
      variant(1, {
        ...api,
        to_number: OTHER,
        external_id: 'crm-42',
        metadata: json({ plan: 'gold', n: 42, region: 'eu' }),
      }),
      variant(2, {
        ...api,
        to_number: OTHER,
        external_id: 'crm-43',
        metadata: json({ plan: 'gold', vip: true, region: 'eu' }),
      }),
      variant(3, { ...api, metadata: json({ plan: 'silver', 'a:b,c': 'x,y:z', empty: '', gone: null }) }),
      // An external_id the API does not show (not placed through it) is not found by it either.
      variant(4, { direction: 'inbound', api_initiated: false, external_id: 'crm-42', from_number: OTHER }),
      variant(5, {
        disconnect_reason: 'provider_lost',
        status: 'failed',
        duration_seconds: null,
        cost_usd: null,
      }),
      variant(6, { duration_seconds: 600, cost_usd: '0.9000', has_transcript: false }),
      variant(7, { duration_seconds: 0, cost_usd: '0.0000', has_transcript: false }),
    ];
    await insertCalls(t.db, planted);
    return [...base, ...planted];
  }
  const json = (v: Record<string, unknown>) => JSON.stringify(v);

  before(async () => {
    t = await startTestApp();
    // Many pages are read: the highest rate a customer can have, and the clock moved on between walks.
    c = await newCustomer(t, { rateLimitPerMinute: 600, keyRateLimitPerMinute: 600 });
    stranger = await newCustomer(t, { rateLimitPerMinute: 600, keyRateLimitPerMinute: 600 });
    rows = await plant(c);
    theirs = await plant(stranger);
  });
  after(() => t.close());

  const get = (query: string, key = c.key) => t.request('GET', `/api/v1/calls?limit=100&${query}`, { key });
  const expect = async (query: string, keep: (r: NewCall) => boolean, atLeast = 1) => {
    const res = await get(query);
    assert.equal(res.status, 200, `${query}: ${res.text}`);
    const expected = expectedOrder(rows.filter(keep));
    assert.ok(expected.length >= atLeast, `${query} has something to find`);
    assert.deepEqual(ids(res.body), expected, query);
    return res;
  };
  const meta = (r: NewCall): Record<string, unknown> =>
    typeof r.metadata === 'string' ? JSON.parse(r.metadata) : {};

  it('from_number and to_number: exact E.164; an unencoded + (a space) is read as +', async () => {
    await expect(`from_number=${encodeURIComponent(ME)}`, (r) => r.from_number === ME, 3);
    await expect(`from_number=${ME}`, (r) => r.from_number === ME, 3);
    await expect(`to_number=%2B12125550123`, (r) => r.to_number === OTHER, 2);
    const any = rows[0];
    assert.ok(any);
    await expect(
      `to_number=${encodeURIComponent(any.to_number)}&from_number=${encodeURIComponent(any.from_number)}`,
      (r) => r.to_number === any.to_number && r.from_number === any.from_number,
    );
    await expect('from_number=%2B14155550100', (r) => r.from_number === '+14155550100', 0);
  });

  it('external_id: exact, and only on calls placed through the API (where it is shown)', async () => {
    const res = await expect(
      'external_id=crm-42',
      (r) => r.external_id === 'crm-42' && r.api_initiated === true,
    );
    assert.equal(res.body.data.length, 1);
    assert.equal(res.body.data[0].external_id, 'crm-42');
    await expect('external_id=CRM-42', () => false, 0);
    await expect('external_id=crm-4', () => false, 0);
  });

  it('metadata: one pair or several (all must match), values compared as text, escapes', async () => {
    await expect('metadata=plan:gold', (r) => meta(r).plan === 'gold', 2);
    await expect('metadata=plan:gold,n:42', (r) => meta(r).plan === 'gold' && meta(r).n === 42);
    await expect('metadata=n:42,plan:gold', (r) => meta(r).n === 42);
    await expect('metadata=vip:true', (r) => meta(r).vip === true);
    await expect('metadata=plan:gold,plan2:gold', () => false, 0);
    await expect(`metadata=${encodeURIComponent('a\\:b\\,c:x\\,y:z')}`, (r) => meta(r)['a:b,c'] === 'x,y:z');
    await expect('metadata=empty:', (r) => meta(r).empty === '');
    await expect('metadata=gone:null', () => false, 0);
    await expect('metadata=gone:', () => false, 0);
    await expect('metadata=n:42.0', () => false, 0);
  });

  it('disconnect_reason: exact', async () => {
    await expect('disconnect_reason=provider_lost', (r) => r.disconnect_reason === 'provider_lost');
    await expect('disconnect_reason=caller_hangup', (r) => r.disconnect_reason === 'caller_hangup');
    await expect('disconnect_reason=hangup', () => false, 0);
  });

  it('duration_min/duration_max and cost_min/cost_max: inclusive; a call without the value never matches', async () => {
    const d = (r: NewCall) => r.duration_seconds ?? null;
    await expect('duration_min=600', (r) => (d(r) ?? -1) >= 600);
    await expect('duration_max=0', (r) => d(r) === 0);
    const some = rows.map(d).find((x) => x !== null && x > 0 && x < 600) ?? 1;
    await expect(
      `duration_min=${some}&duration_max=${some + 50}`,
      (r) => (d(r) ?? -1) >= some && (d(r) ?? 999) <= some + 50,
    );
    const cost = (r: NewCall) =>
      r.cost_usd === null || r.cost_usd === undefined ? null : Number(r.cost_usd);
    await expect('cost_min=0.9', (r) => (cost(r) ?? -1) >= 0.9);
    await expect('cost_min=0.90&cost_max=0.9000', (r) => cost(r) === 0.9);
    await expect('cost_max=0', (r) => cost(r) === 0);
    const paid = rows.map(cost).find((x) => x !== null && x > 0) ?? 0;
    await expect(
      `cost_min=0.0001&cost_max=${paid}`,
      (r) => (cost(r) ?? -1) >= 0.0001 && (cost(r) ?? 9) <= paid,
    );
  });

  it('has_transcript: true or false', async () => {
    await expect('has_transcript=false', (r) => r.has_transcript === false, 3);
    await expect('has_transcript=true', (r) => r.has_transcript === true, 3);
  });

  it('updated_since: an inclusive bound on updated_at, exact to the microsecond', async () => {
    const times = [...new Set(rows.map((r) => new Date(r.updated_at as Date).getTime()))].sort(
      (a, b) => a - b,
    );
    const middle = times[Math.floor(times.length / 2)] ?? 0;
    const since = new Date(middle).toISOString();
    const res = await expect(
      `updated_since=${since}`,
      (r) => new Date(r.updated_at as Date).getTime() >= middle,
      2,
    );
    for (const item of res.body.data) assert.ok(item.updated_at >= since);
    await expect(
      `updated_since=${new Date(middle).toISOString().replace('Z', '001Z')}`,
      (r) => new Date(r.updated_at as Date).getTime() > middle,
    );
  });

  it('filters combine with each other and with the first ones', async () => {
    await expect(
      `from_number=%2B14155550177&metadata=plan:gold&direction=outbound&status=${rows[0]?.status}&has_transcript=${rows[0]?.has_transcript}`,
      (r) =>
        r.from_number === ME &&
        meta(r).plan === 'gold' &&
        r.direction === 'outbound' &&
        r.status === rows[0]?.status &&
        r.has_transcript === rows[0]?.has_transcript,
    );
    await expect('external_id=crm-43&metadata=plan:silver', () => false, 0);
  });

  it("never matches another customer's calls, whose values are the same", async () => {
    const queries = [
      'from_number=%2B14155550177',
      'to_number=%2B12125550123',
      'external_id=crm-42',
      'metadata=plan:gold',
      'disconnect_reason=provider_lost',
      'duration_min=600',
      'cost_min=0.9',
      'has_transcript=false',
      `updated_since=${new Date(0).toISOString()}`,
    ];
    const mine = new Set(rows.map((r) => r.id));
    const strangers = new Set(theirs.map((r) => r.id));
    for (const query of queries) {
      for (const [key, own, other] of [
        [c.key, mine, strangers],
        [stranger.key, strangers, mine],
      ] as const) {
        const res = await get(query, key);
        assert.equal(res.status, 200);
        assert.ok(res.body.data.length > 0, query);
        for (const id of ids(res.body)) {
          assert.ok(own.has(id), `${query}: only the caller's calls`);
          assert.ok(!other.has(id));
        }
      }
    }
  });

  it('a cursor continues only the list of its filters; a walk with every filter matches the list', async () => {
    const queries = [
      'from_number=%2B14155550177',
      'to_number=%2B12125550123',
      'external_id=crm-42',
      'metadata=plan:gold',
      'disconnect_reason=caller_hangup',
      'duration_min=1',
      'duration_max=400',
      'cost_min=0.01',
      'cost_max=0.5',
      'has_transcript=true',
      `updated_since=${new Date(0).toISOString()}`,
    ];
    const first = await t.request('GET', '/api/v1/calls?limit=2&has_transcript=true', { key: c.key });
    const cursor = first.body.next_cursor;
    assert.ok(cursor);
    for (const other of [...queries.filter((q) => q !== 'has_transcript=true'), 'has_transcript=false', '']) {
      const res = await t.request('GET', `/api/v1/calls?limit=2&${other}&cursor=${cursor}`, { key: c.key });
      assert.equal(res.status, 422, other);
      assert.deepEqual(res.body.issues[0].path, ['query', 'cursor']);
    }
    const same = await t.request('GET', `/api/v1/calls?limit=2&has_transcript=true&cursor=${cursor}`, {
      key: c.key,
    });
    assert.equal(same.status, 200);

    for (const query of [...queries, 'from_number=%2B14155550177&duration_min=1&has_transcript=true']) {
      t.clock.advance(60_000);
      const all = await get(query);
      for (const mode of ['cursor', 'page'] as const) {
        const walk = await walkCalls(t, c.key, { mode, limit: 4, query });
        assert.deepEqual(walk.ids, ids(all.body), `${mode}: ${query}`);
      }
    }
    // Equal filters bind equal cursors: metadata's pairs in another order, an amount written otherwise.
    const gold = await t.request('GET', '/api/v1/calls?limit=1&metadata=plan:gold,region:eu&cost_min=0', {
      key: c.key,
    });
    const next = gold.body.next_cursor;
    assert.ok(next);
    const again = await t.request(
      'GET',
      `/api/v1/calls?limit=1&metadata=region:eu,plan:gold&cost_min=0.0000&cursor=${next}`,
      { key: c.key },
    );
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.data.length, 1);
    assert.notEqual(again.body.data[0].id, gold.body.data[0].id);
  });
});
