import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';

type Issue = { path: string[]; message: string };

describe('GET /calls validation: 422 input.invalid, one issue per problem', () => {
  let t: TestApp;
  let key: string;
  before(async () => {
    t = await startTestApp();
    // One request per case, over a hundred: the highest rate a customer can have.
    key = (await newCustomer(t, { rateLimitPerMinute: 600, keyRateLimitPerMinute: 600 })).key;
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
    // Search (issue 39).
    ['from_number=14155550100', 'from_number'],
    ['from_number=%2B1415555', 'from_number'],
    ['from_number=%2B1%20415%20555%200100', 'from_number'],
    ['from_number=%2B19995550100', 'from_number'],
    ['from_number=', 'from_number'],
    ['to_number=abc', 'to_number'],
    ['to_number=%2B14155550100&to_number=%2B14155550101', 'to_number'],
    ['external_id=', 'external_id'],
    [`external_id=${'x'.repeat(256)}`, 'external_id'],
    ['external_id=a%01b', 'external_id'],
    ['metadata=', 'metadata'],
    ['metadata=plan', 'metadata'],
    ['metadata=:gold', 'metadata'],
    ['metadata=plan:gold,', 'metadata'],
    ['metadata=plan:gold,plan:silver', 'metadata'],
    ['metadata=plan:gold%5C', 'metadata'],
    [`metadata=${'k'.repeat(41)}:v`, 'metadata'],
    [`metadata=k:${'v'.repeat(1001)}`, 'metadata'],
    [`metadata=${Array.from({ length: 11 }, (_, i) => `k${i}:v`).join(',')}`, 'metadata'],
    ['metadata=a:1&metadata=b:2', 'metadata'],
    ['disconnect_reason=', 'disconnect_reason'],
    [`disconnect_reason=${'r'.repeat(201)}`, 'disconnect_reason'],
    ['duration_min=-1', 'duration_min'],
    ['duration_min=1.5', 'duration_min'],
    ['duration_max=abc', 'duration_max'],
    ['duration_min=10&duration_max=5', 'duration_min'],
    ['cost_min=-1', 'cost_min'],
    ['cost_min=0.12345', 'cost_min'],
    ['cost_min=1e3', 'cost_min'],
    ['cost_max=123456789', 'cost_max'],
    ['cost_max=.5', 'cost_max'],
    ['cost_min=1&cost_max=0.5', 'cost_min'],
    ['has_transcript=yes', 'has_transcript'],
    ['has_transcript=TRUE', 'has_transcript'],
    ['has_transcript=1', 'has_transcript'],
    ['has_transcript=', 'has_transcript'],
    ['updated_since=yesterday', 'updated_since'],
    ['updated_since=2026-01-01', 'updated_since'],
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

  it('reports every problem of the search filters at once', async () => {
    const issues = await issuesFor(
      'from_number=1&to_number=x&external_id=&metadata=x&disconnect_reason=&duration_min=9&duration_max=1' +
        '&cost_min=x&cost_max=1.00001&has_transcript=no&updated_since=now',
    );
    assert.deepEqual(issues.map((i) => i.path[1]).sort(), [
      'cost_max',
      'cost_min',
      'disconnect_reason',
      'duration_min',
      'external_id',
      'from_number',
      'has_transcript',
      'metadata',
      'to_number',
      'updated_since',
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
      'from_number=%2B14155550100&to_number=%2B442071838750',
      'external_id=crm-42',
      `external_id=${'x'.repeat(255)}`,
      'metadata=a:',
      'metadata=url:https://example.com/a?b=c',
      `metadata=${'k'.repeat(40)}:${'v'.repeat(1000)}`,
      `metadata=${Array.from({ length: 10 }, (_, i) => `k${i}:v`).join(',')}`,
      'disconnect_reason=caller_hangup',
      'duration_min=0&duration_max=2147483647',
      'duration_min=60&duration_max=60',
      'cost_min=0&cost_max=99999999.9999',
      'cost_min=0.5&cost_max=0.50',
      'has_transcript=true',
      'has_transcript=false',
      'updated_since=1970-01-01T00:00:00Z',
    ]) {
      const res = await t.request('GET', `/api/v1/calls?${query}`, { key });
      assert.equal(res.status, 200, `${query}: ${res.text}`);
    }
  });
});
