import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AssistantRow } from '../db/tables/assistants.table.ts';
import type { NewCall } from '../db/tables/calls.table.ts';
import { generateCalls } from '../demo/call-generator.ts';
import { rng } from '../provider/random.ts';
import { expectedOrder, makeAssistants, makeCalls, walkCalls } from '../testing/calls.fixtures.ts';
import { newCustomer, startTestApp, type TestApp, type TestCustomer } from '../testing/test-app.ts';
import { insertCalls } from './calls.repository.ts';

const duplicates = (ids: string[]) => ids.filter((id, i) => ids.indexOf(id) !== i);

describe('GET /calls pagination while calls arrive', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  async function customerWithCalls(count: number) {
    const c = await newCustomer(t);
    const assistants = await makeAssistants(t, c.customerId, 2);
    const initial = await makeCalls(t, c.customerId, assistants, count);
    return { c, assistants, initial };
  }

  /** New calls that started after everything seen so far: the clock moves on, they start "now". */
  async function arriveNow(c: TestCustomer, assistants: AssistantRow[], count: number): Promise<NewCall[]> {
    t.clock.advance(3_600_000);
    return makeCalls(t, c.customerId, assistants, count, 0.01);
  }

  it('a cursor walk returns every call that existed exactly once, and no call twice', async () => {
    const { c, assistants, initial } = await customerWithCalls(60);
    const late: NewCall[] = [];
    const start = t.clock.now().getTime();
    const walk = await walkCalls(t, c.key, {
      mode: 'cursor',
      limit: 7,
      between: async () => {
        late.push(...(await arriveNow(c, assistants, 2)));
        // A call recorded late, older than anything listed so far: it is still ahead of the cursor.
        const old = generateCalls({
          customerId: c.customerId,
          assistants,
          count: 1,
          end: new Date(start - (40 + late.length) * 86_400_000),
          days: 0.5,
          random: rng(late.length),
        });
        await insertCalls(t.db, old);
        late.push(...old);
      },
    });
    assert.deepEqual(duplicates(walk.ids), []);
    const initialIds = new Set(initial.map((r) => r.id));
    assert.deepEqual(
      walk.ids.filter((id) => initialIds.has(id)),
      expectedOrder(initial),
    );
    // Calls newer than the first page are behind the cursor; late-recorded old ones are ahead of it.
    const oldest = Math.min(...initial.map((r) => new Date(r.started_at as Date).getTime()));
    for (const r of late) {
      const older = new Date(r.started_at as Date).getTime() < oldest;
      assert.equal(walk.ids.includes(r.id), older);
    }
  });

  it('a call arriving with the exact started_at of the page boundary is neither lost nor repeated', async () => {
    const { c, initial } = await customerWithCalls(30);
    const order = expectedOrder(initial);
    const first = await t.request('GET', '/api/v1/calls?limit=10', { key: c.key });
    const boundary = initial.find((r) => r.id === order[9]);
    assert.ok(boundary);
    // Two newcomers on the boundary instant: one sorts before the boundary row (bigger id), one after.
    const twins = ['ffffffff-ffff-4fff-bfff-ffffffffffff', '00000000-0000-4000-8000-000000000000'].map(
      (id) => ({ ...boundary, id }),
    );
    await insertCalls(t.db, twins);
    const second = await t.request('GET', `/api/v1/calls?limit=100&cursor=${first.body.next_cursor}`, {
      key: c.key,
    });
    const seen = [...first.body.data, ...second.body.data].map((x: { id: string }) => x.id);
    assert.deepEqual(duplicates(seen), []);
    assert.deepEqual(
      seen.filter((id) => !twins.some((tw) => tw.id === id)),
      order,
    );
    const [bigger, smaller] = twins.map((tw) => tw.id);
    assert.ok(bigger && smaller);
    assert.ok(!seen.includes(bigger), 'sorts before the cursor: already passed');
    assert.ok(seen.includes(smaller), 'sorts after the cursor: still ahead');
  });

  it('a page walk with `to` pinned at its start returns every call exactly once while newer calls arrive', async () => {
    const { c, assistants, initial } = await customerWithCalls(45);
    const pinned = encodeURIComponent(t.clock.now().toISOString());
    const walk = await walkCalls(t, c.key, {
      mode: 'page',
      limit: 10,
      query: `to=${pinned}`,
      between: async () => {
        await arriveNow(c, assistants, 3);
      },
    });
    assert.deepEqual(walk.ids, expectedOrder(initial));
  });

  it('without a pinned `to`, offset pages shift when newer calls arrive (why cursors are recommended)', async () => {
    const { c, assistants } = await customerWithCalls(30);
    const walk = await walkCalls(t, c.key, {
      mode: 'page',
      limit: 10,
      between: async () => {
        await arriveNow(c, assistants, 3);
      },
    });
    assert.ok(duplicates(walk.ids).length > 0);
  });

  it("another customer's calls arriving change neither the pages nor the cursors", async () => {
    const { c, initial } = await customerWithCalls(25);
    const stranger = await newCustomer(t);
    const strangerAssistants = await makeAssistants(t, stranger.customerId, 1);
    const before = await walkCalls(t, c.key, { mode: 'cursor', limit: 6 });
    await makeCalls(t, stranger.customerId, strangerAssistants, 40);
    const afterInsert = await walkCalls(t, c.key, { mode: 'cursor', limit: 6 });
    assert.deepEqual(afterInsert, before);
    assert.deepEqual(before.ids, expectedOrder(initial));
  });
});
