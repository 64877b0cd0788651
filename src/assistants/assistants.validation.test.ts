import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeAssistants } from '../testing/calls.fixtures.ts';
import { newCustomer, startTestApp, type TestApp, type TestCustomer } from '../testing/test-app.ts';

describe('GET /assistants validation: 422 input.invalid, one issue per problem', () => {
  let t: TestApp;
  let c: TestCustomer;
  let newestFirst: string[];
  before(async () => {
    t = await startTestApp();
    c = await newCustomer(t);
    const made = await makeAssistants(t, c.customerId, 3);
    newestFirst = made.map((a) => a.id).reverse();
  });
  after(() => t.close());

  const get = (query = '', key = c.key) => t.request('GET', `/api/v1/assistants${query}`, { key });

  it('refuses invalid values, each unknown parameter, and offset with page together', async () => {
    const cases: [string, string[]][] = [
      ['?id=nope', ['id']],
      ['?limit=0', ['limit']],
      ['?limit=101', ['limit']],
      ['?limit=abc', ['limit']],
      ['?offset=-1', ['offset']],
      ['?offset=1.5', ['offset']],
      ['?page=x', ['page']],
      ['?cursor=abc', ['cursor']],
      ['?offset=10&page=1', ['page']],
      ['?limit=1&limit=2', ['limit']],
      ['?sort=name&q=x', ['q', 'sort']],
    ];
    for (const [query, params] of cases) {
      const res = await get(query);
      assert.equal(res.status, 422, query);
      assert.equal(res.body.code, 'input.invalid');
      assert.deepEqual(
        res.body.issues.map((i: { path: string[] }) => i.path).sort(),
        params.map((p) => ['query', p]),
        query,
      );
    }
  });

  it('refuses a cursor issued for another id filter or customer', async () => {
    const first = await get('?limit=2');
    const stranger = await newCustomer(t);
    await makeAssistants(t, stranger.customerId, 1);
    for (const [query, key] of [
      [`?cursor=${first.body.next_cursor}`, stranger.key],
      [`?cursor=${first.body.next_cursor}&id=${newestFirst[0]}`, c.key],
    ] as const) {
      const res = await get(query, key);
      assert.equal(res.status, 422);
      assert.deepEqual(res.body.issues[0].path, ['query', 'cursor']);
    }
  });
});
