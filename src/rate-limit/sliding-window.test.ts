import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WINDOW_MS } from './interface.ts';
import { createMemoryLimiter, prune } from './memory.ts';
import { bucketState } from './sliding-window.ts';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);

describe('sliding-window arithmetic', () => {
  it('prunes entries that are a full window old or older, compacting once they are half the log', () => {
    const log = { times: [T0, T0 + 1, T0 + 30_000, T0 + 40_000], head: 0 };
    prune(log, T0 + WINDOW_MS);
    assert.deepEqual(log, { times: [T0, T0 + 1, T0 + 30_000, T0 + 40_000], head: 1 });
    prune(log, T0 + WINDOW_MS + 1);
    assert.deepEqual(log, { times: [T0 + 30_000, T0 + 40_000], head: 0 });
    prune(log, T0 + WINDOW_MS + 40_000);
    assert.deepEqual(log, { times: [], head: 0 });
  });

  it('reports remaining, full-refill time and the wait for the next slot', () => {
    const s = bucketState(60, 60, T0, T0 + 10_000, T0 + 20_000);
    assert.equal(s.remaining, 0);
    assert.equal(s.resetAt.getTime(), T0 + 10_000 + WINDOW_MS);
    assert.equal(s.retryAfterSeconds, 40);
    const fresh = bucketState(60, 0, null, null, T0);
    assert.deepEqual([fresh.remaining, fresh.resetAt.getTime(), fresh.retryAfterSeconds], [60, T0, 0]);
  });

  it('never says retry after 0 seconds when refused', () => {
    assert.equal(bucketState(1, 1, T0, T0, T0 + WINDOW_MS - 1).retryAfterSeconds, 1);
  });
});

describe('memory limiter', () => {
  it('admits exactly the limit within a window, then slides', async () => {
    const limiter = createMemoryLimiter();
    const bucket = { key: 'k', limit: 3 };
    const results = [];
    for (let i = 0; i < 5; i++) results.push((await limiter.hit([bucket], at(i * 1000), `r${i}`)).allowed);
    assert.deepEqual(results, [true, true, true, false, false]);
    assert.equal((await limiter.hit([bucket], at(WINDOW_MS - 1), 'x')).allowed, false);
    assert.equal((await limiter.hit([bucket], at(WINDOW_MS), 'y')).allowed, true, 'the first entry left');
    assert.equal((await limiter.hit([bucket], at(WINDOW_MS + 1), 'z')).allowed, false, 'only one slot freed');
  });

  it('counts a request in every bucket or in none', async () => {
    const limiter = createMemoryLimiter();
    const small = { key: 'small', limit: 1 };
    const big = { key: 'big', limit: 10 };
    assert.equal((await limiter.hit([big, small], at(0), 'a')).allowed, true);
    const refused = await limiter.hit([big, small], at(1), 'b');
    assert.equal(refused.allowed, false);
    assert.equal(refused.blockedIndex, 1);
    assert.equal(
      (await limiter.peek(big, at(2))).remaining,
      9,
      'the refused request did not use the big bucket',
    );
  });

  it('forgets idle buckets (memory follows live traffic)', async () => {
    const limiter = createMemoryLimiter();
    for (let i = 0; i < 100; i++) await limiter.hit([{ key: `k${i}`, limit: 5 }], at(0), 'r');
    await limiter.hit([{ key: 'late', limit: 5 }], at(2 * WINDOW_MS), 'r');
    assert.equal((await limiter.peek({ key: 'k1', limit: 5 }, at(2 * WINDOW_MS))).remaining, 5);
  });
});
