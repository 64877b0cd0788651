import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../testing/test-app.ts';

/** What pg throws when the database is away, as a route would see it. */
const failures: Record<string, () => Error> = {
  refused: () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
  restarting: () =>
    Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
  dropped: () => new Error('Connection terminated unexpectedly'),
  'pool timeout': () => new Error('timeout exceeded when trying to connect'),
  'query timeout': () => new Error('Query read timeout'),
};

describe('database unavailable', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({
      register: (app) => {
        app.get('/db-down/:kind', async (request) => {
          const make = failures[(request.params as { kind: string }).kind];
          throw make ? make() : new Error('unexpected');
        });
      },
    });
  });
  after(() => t.close());

  for (const kind of Object.keys(failures)) {
    it(`${kind}: 503 service.unavailable, a retryable problem rather than an internal error`, async () => {
      const res = await t.request('GET', `/db-down/${encodeURIComponent(kind)}`);
      assert.equal(res.status, 503);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.equal(res.body.code, 'service.unavailable');
      assert.equal(res.body.status, 503);
      assert.equal(res.body.request_id, res.headers['x-request-id']);
      assert.equal(res.headers['retry-after'], undefined, 'Retry-After is for 429 only (spec 4)');
      assert.doesNotMatch(res.body.detail, /5432|ECONN|administrator/, 'nothing internal leaks');
    });
  }

  it('any other error stays a 500 internal.error', async () => {
    const res = await t.request('GET', '/db-down/other');
    assert.equal(res.status, 500);
    assert.equal(res.body.code, 'internal.error');
  });
});
