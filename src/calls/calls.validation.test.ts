import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';

type Issue = { path: string[]; message: string };

describe('GET /calls validation: 422 input.invalid, one issue per problem', () => {
  let t: TestApp;
  let key: string;
  before(async () => {
    t = await startTestApp();
    key = (await newCustomer(t)).key;
  });
  after(() => t.close());

  async function issuesFor(query: string): Promise<Issue[]> {
    const res = await t.request('GET', `/api/v1/calls?${query}`, { key });
    assert.equal(res.status, 422, `${query} should be refused`);
    assert.equal(res.body.code, 'input.invalid');
    assert.match(res.headers['content-type'] ?? '', /^application\/problem\+json/);
    return res.body.issues;
  }

  const cases: [string, string][] = [
    ['direction=incoming', 'direction'],
    ['direction=', 'direction'],
    ['direction=INBOUND', 'direction'],
    ['assistant_id=123', 'assistant_id'],
    ['assistant_id=6f1c1b5e-0000-0000-0000-00000000000', 'assistant_id'],
    ['from=yesterday', 'from'],
    ['from=2026-01-01', 'from'],
    ['from=2026-01-01T10:00:00', 'from'],
    ['from=2026-02-30T10:00:00Z', 'from'],
    ['from=2026-01-01T24:00:00Z', 'from'],
    ['from=1969-12-31T23:59:59Z', 'from'],
    ['to=2026-01-01T10:00:00%2B25:00', 'to'],
    ['to=1700000000', 'to'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=ten', 'limit'],
    ['limit=', 'limit'],
    ['limit=99999999999999999999', 'limit'],
    ['page=-1', 'page'],
    ['page=1e3', 'page'],
    ['page=2147483648', 'page'],
    ['cursor=', 'cursor'],
    ['cursor=abc', 'cursor'],
    [`cursor=${'a'.repeat(201)}`, 'cursor'],
    ['from=2026-01-02T00:00:00Z&to=2026-01-01T23:59:59Z', 'from'],
    ['limit=10&limit=20', 'limit'],
    ['direction=inbound&direction=outbound', 'direction'],
    ['status=done', 'status'],
    ['status=', 'status'],
    ['status=COMPLETED', 'status'],
    ['status=completed,', 'status'],
    ['status=completed,,failed', 'status'],
    ['status=completed%20,failed', 'status'],
    ['status=completed,answered', 'status'],
    ['status=completed&status=failed', 'status'],
  ];
  for (const [query, param] of cases) {
    it(`refuses ${query.length > 60 ? `${query.slice(0, 60)}…` : query} on ["query","${param}"]`, async () => {
      const issues = await issuesFor(query);
      assert.deepEqual(
        issues.map((i) => i.path),
        [['query', param]],
      );
      assert.ok(issues[0]?.message);
    });
  }

  it('refuses each unknown parameter with an issue of its own', async () => {
    const issues = await issuesFor('limit=5&offset=10&sort=asc&api_key=x');
    assert.deepEqual(issues.map((i) => i.path).sort(), [
      ['query', 'api_key'],
      ['query', 'offset'],
      ['query', 'sort'],
    ]);
  });

  it('GET /calls/{id} refuses unknown query parameters too', async () => {
    const res = await t.request('GET', '/api/v1/calls/6f1c1b5e-0000-4000-8000-000000000000?expand=all', {
      key,
    });
    assert.equal(res.status, 422);
    assert.deepEqual(
      res.body.issues.map((i: Issue) => i.path),
      [['query', 'expand']],
    );
  });

  it('reports every problem of one request at once', async () => {
    const issues = await issuesFor(
      'direction=sideways&assistant_id=x&limit=0&page=x&from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z&foo=1',
    );
    assert.deepEqual(issues.map((i) => i.path[1]).sort(), [
      'assistant_id',
      'direction',
      'foo',
      'from',
      'limit',
      'page',
    ]);
  });

  it('accepts the edges of every range', async () => {
    for (const query of [
      'limit=1',
      'limit=100',
      'page=0',
      'page=2147483647',
      'from=1970-01-01T00:00:00Z',
      'to=9999-12-31T23:59:59.999999Z',
      'from=2026-01-01T00:00:00Z&to=2026-01-01T00:00:00Z',
      'from=2026-01-01T00:00:00.123456789-14:00',
      'assistant_id=6F1C1B5E-0000-4000-8000-000000000000',
      'status=queued',
      'status=queued,ringing,in_progress,completed,no_answer,busy,failed,canceled',
      'status=failed,failed',
    ]) {
      const res = await t.request('GET', `/api/v1/calls?${query}`, { key });
      assert.equal(res.status, 200, `${query}: ${res.text}`);
    }
  });
});
