import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';

describe('health, readiness and metrics', () => {
  let t: TestApp;
  let redisUp = true;
  let backlog: string | null = null;
  before(async () => {
    t = await startTestApp({
      readinessProbes: [
        {
          name: 'redis',
          check: async () => {
            if (!redisUp) throw new Error('connection refused');
          },
        },
        { name: 'worker', check: async () => {}, warning: () => backlog },
      ],
    });
  });
  after(() => t.close());

  it('/healthz answers without a key', async () => {
    const res = await t.request('GET', '/healthz');
    assert.deepEqual([res.status, res.body], [200, { status: 'ok' }]);
    assert.ok(res.headers['x-request-id']);
  });

  it('/readyz checks every dependency and answers 503 service.unavailable when one is down', async () => {
    const ok = await t.request('GET', '/readyz');
    assert.deepEqual(
      [ok.status, ok.body],
      [
        200,
        {
          status: 'ready',
          provider: { name: 'simulator', state: 'ok', checked_at: null, since: null, detail: null },
          checks: { database: 'ok', redis: 'ok', worker: 'ok' },
        },
      ],
    );
    redisUp = false;
    const down = await t.request('GET', '/readyz');
    assert.equal(down.status, 503);
    assert.equal(down.body.code, 'service.unavailable');
    assert.match(down.body.detail, /redis/);
    redisUp = true;
  });

  it('/readyz stays ready with a backlog warning while the webhook outbox is behind', async () => {
    backlog = 'webhook outbox behind: 9 deliveries due, the oldest for 75 s (threshold 60 s)';
    const behind = await t.request('GET', '/readyz');
    assert.equal(behind.status, 200);
    assert.deepEqual(behind.body.warnings, { worker: backlog });
    backlog = null;
    assert.equal((await t.request('GET', '/readyz')).body.warnings, undefined);
  });

  it('/metrics counts requests by route and status, rate-limit rejections and auth failures, without tenant labels', async () => {
    const c = await newCustomer(t);
    await t.request('GET', '/api/v1/auth/whoami', { key: c.key });
    await t.request('GET', '/api/v1/auth/whoami');
    const res = await t.request('GET', '/metrics');
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'] ?? '', /text\/plain/);
    assert.match(
      res.text,
      /http_requests_total\{route="\/api\/v1\/auth\/whoami",method="GET",status="200"\} [1-9]/,
    );
    assert.match(res.text, /auth_failures_total\{code="auth.missing"\} [1-9]/);
    assert.match(res.text, /http_request_duration_seconds_bucket/);
    assert.ok(!res.text.includes(c.customerId), 'no customer ids');
    assert.ok(!res.text.includes(c.key.slice(0, 12)), 'no key prefixes');
  });
});
