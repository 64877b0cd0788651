import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FrozenRedis, startFrozenRedis } from '../testing/frozen-redis.ts';
import { testRedisLimiters } from '../testing/redis-limiters.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';

/**
 * A Redis that stops answering after the service connected (a partition, a frozen server): the case a refused
 * connection does not cover, because every command waits for a reply that does not come.
 */
describe('Redis that stops answering', () => {
  const limiters = testRedisLimiters('stall');
  let frozen: FrozenRedis;
  let t: TestApp;
  let warnings: string[];
  before(async () => {
    frozen = await startFrozenRedis();
    const opened = await limiters.open(frozen.url, { connects: true, readyCheck: false });
    warnings = opened.warnings;
    t = await startTestApp({ limiter: opened.limiter });
  });
  after(async () => {
    await t.close();
    await limiters.close(undefined);
    await frozen.close();
  });

  it('requests are answered (one waits out the deadline, then Redis is skipped) and still limited', async () => {
    const c = await newCustomer(t);
    const statuses: number[] = [];
    const started = performance.now();
    for (let i = 0; i < 61; i++)
      statuses.push((await t.request('GET', '/api/v1/auth/whoami', { key: c.key })).status);
    const elapsed = performance.now() - started;
    assert.deepEqual(statuses.slice(0, 60), Array(60).fill(200));
    assert.equal(statuses[60], 429, 'fail open to per-instance limits, not to no limit');
    // One deadline for the whole series, not one per request (61 × 500 ms would be half a minute).
    assert.ok(elapsed < 15_000, `61 requests took ${Math.round(elapsed)} ms`);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /"event":"redis_slow"/, 'an open connection that says nothing is "slow"');
  });
});
