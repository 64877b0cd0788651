import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AssistantRow } from '../db/tables/assistants.table.ts';
import { newUuid } from '../ids.ts';
import { SCOPES } from '../keys/scopes.ts';
import { makeAssistants } from '../testing/calls.fixtures.ts';
import { newCustomer, startTestApp, type TestApp, type TestCustomer } from '../testing/test-app.ts';

const FIELDS = [
  'created_at',
  'description',
  'id',
  'is_active',
  'language',
  'name',
  'phone_numbers',
  'updated_at',
  'voice_id',
];
const ids = (body: { data: { id: string }[] }) => body.data.map((a) => a.id);

describe('GET /assistants', () => {
  let t: TestApp;
  let c: TestCustomer;
  let newestFirst: string[];
  before(async () => {
    t = await startTestApp();
    c = await newCustomer(t);
    const made: AssistantRow[] = [];
    // 57 assistants, one a minute: more than the default page of 50.
    for (let i = 0; i < 57; i++) {
      made.push(...(await makeAssistants(t, c.customerId, 1)));
      t.clock.advance(60_000);
    }
    newestFirst = made.map((a) => a.id).reverse();
    // Another customer's assistants must change nothing below.
    const stranger = await newCustomer(t);
    await makeAssistants(t, stranger.customerId, 5);
  });
  after(() => t.close());

  const get = (query = '', key = c.key) => t.request('GET', `/api/v1/assistants${query}`, { key });

  it('lists 50 by default, newest first, with every field of spec 2.2 and the total', async () => {
    const res = await get();
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'next_cursor', 'pagination']);
    assert.deepEqual(res.body.pagination, { limit: 50, offset: 0, total: 57 });
    assert.deepEqual(ids(res.body), newestFirst.slice(0, 50));
    const first = res.body.data[0];
    assert.deepEqual(Object.keys(first).sort(), FIELDS);
    assert.equal(first.name, 'Assistant 1');
    assert.equal(first.voice_id, 'aria');
    assert.equal(first.language, 'en-US');
    assert.equal(first.is_active, true);
    assert.deepEqual(first.phone_numbers, ['+14155550100']);
    assert.match(first.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('pages with limit and offset, and with page (offset = page × limit)', async () => {
    const byOffset = await get('?limit=20&offset=40');
    assert.deepEqual(byOffset.body.pagination, { limit: 20, offset: 40, total: 57 });
    assert.deepEqual(ids(byOffset.body), newestFirst.slice(40));
    assert.equal(byOffset.body.next_cursor, null);
    const byPage = await get('?limit=20&page=2');
    assert.deepEqual(byPage.body, byOffset.body);
    const past = await get('?offset=100');
    assert.deepEqual(past.body.data, []);
    assert.equal(past.body.pagination.total, 57);
  });

  it('walks every assistant exactly once by cursor, reporting the offset of each page', async () => {
    const seen: string[] = [];
    const offsets: number[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`?limit=10${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(res.status, 200);
      seen.push(...ids(res.body));
      offsets.push(res.body.pagination.offset);
      assert.equal(res.body.pagination.total, 57);
      cursor = res.body.next_cursor;
    } while (cursor);
    assert.deepEqual(seen, newestFirst);
    assert.deepEqual(offsets, [0, 10, 20, 30, 40, 50]);
  });

  it('cursor wins over offset and page', async () => {
    const first = await get('?limit=5');
    const next = await get(`?limit=5&offset=30&cursor=${first.body.next_cursor}`);
    assert.deepEqual(ids(next.body), newestFirst.slice(5, 10));
  });

  it("id selects one assistant; another customer's or an unknown id is 404", async () => {
    const id = newestFirst[7] ?? '';
    const res = await get(`?id=${id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(ids(res.body), [id]);
    assert.deepEqual(res.body.pagination, { limit: 50, offset: 0, total: 1 });
    const stranger = await newCustomer(t);
    for (const [query, key] of [
      [`?id=${id}`, stranger.key],
      [`?id=${newUuid()}`, c.key],
    ] as const) {
      const missing = await get(query, key);
      assert.equal(missing.status, 404);
      assert.equal(missing.body.code, 'resource.not_found');
    }
  });

  it('needs read_assistants: 403 perm.denied without it', async () => {
    const without = await newCustomer(t, { scopes: SCOPES.filter((s) => s !== 'read_assistants') });
    const res = await get('', without.key);
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'perm.denied');
    const only = await newCustomer(t, { scopes: ['read_assistants'] });
    const ok = await get('', only.key);
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body.pagination, { limit: 50, offset: 0, total: 0 });
  });
});
