import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WINDOW_MS } from './interface.ts';
import { createLastSeen } from './last-seen.ts';
import { createMemoryLimiter } from './memory.ts';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);

describe("Redis's last counts", () => {
  it('holds what Redis said until its entries leave the window; the entries between leave with the newest', () => {
    const seen = createLastSeen();
    seen.remember('k', 5, T0, T0 + 20_000, T0 + 20_000);
    assert.deepEqual(seen.held('k', T0 + WINDOW_MS - 1), { count: 5, oldest: T0, newest: T0 + 20_000 });
    assert.deepEqual(
      seen.held('k', T0 + WINDOW_MS),
      { count: 4, oldest: T0 + 20_000, newest: T0 + 20_000 },
      'the oldest left; the others are held as long as the newest, never shorter than in Redis',
    );
    assert.equal(seen.held('k', T0 + 20_000 + WINDOW_MS), null);
    assert.equal(seen.held('never-seen', T0), null);
  });

  it('takes the latest answer, and an empty bucket holds nothing', () => {
    const seen = createLastSeen();
    seen.remember('k', 5, T0, T0 + 1, T0 + 1);
    seen.remember('k', 2, T0 + 1, T0 + 2, T0 + 2);
    assert.equal(seen.held('k', T0 + 2)?.count, 2);
    seen.remember('k', 0, null, null, T0 + 3);
    assert.equal(seen.held('k', T0 + 3), null);
  });

  it('forgets buckets whose entries have all left (memory follows live traffic)', () => {
    const seen = createLastSeen();
    for (let i = 0; i < 100; i++) seen.remember(`k${i}`, 1, T0, T0, T0);
    seen.remember('late', 1, T0 + 2 * WINDOW_MS, T0 + 2 * WINDOW_MS, T0 + 2 * WINDOW_MS);
    assert.equal(seen.size(), 1);
  });
});

describe('memory limiter counting on top of what Redis held', () => {
  const bucket = { key: 'prefix:abc', limit: 30 };

  it('admits only what the shared window had left, then refuses until Redis’s entries leave', async () => {
    const seen = createLastSeen();
    seen.remember(bucket.key, 20, T0, T0 + 10_000, T0 + 10_000);
    const local = createMemoryLimiter(seen.held);
    const admitted: boolean[] = [];
    for (let i = 0; i < 12; i++) admitted.push((await local.hit([bucket], at(11_000), `r${i}`)).allowed);
    assert.deepEqual(admitted, [...Array(10).fill(true), false, false]);
    const refused = await local.hit([bucket], at(11_000), 'r12');
    assert.equal(refused.states[0]?.remaining, 0);
    assert.equal(refused.states[0]?.retryAfterSeconds, 49, 'until the oldest entry Redis held leaves');
    assert.equal((await local.hit([bucket], at(WINDOW_MS), 'r13')).allowed, true, 'the oldest has left');
  });

  it('with nothing held it counts from empty, exactly as alone', async () => {
    const local = createMemoryLimiter(createLastSeen().held);
    const admitted: boolean[] = [];
    for (let i = 0; i < 31; i++) admitted.push((await local.hit([bucket], at(0), `r${i}`)).allowed);
    assert.deepEqual(admitted, [...Array(30).fill(true), false]);
  });

  it('reports the held count in peeks and in gates', async () => {
    const seen = createLastSeen();
    seen.remember('authfail:ip:10.0.0.1', 59, T0, T0, T0);
    const local = createMemoryLimiter(seen.held);
    const gate = { key: 'authfail:ip:10.0.0.1', limit: 60 };
    assert.equal((await local.peek(gate, at(1))).remaining, 1);
    assert.equal((await local.hit([{ key: 'key:1', limit: 60 }], at(1), 'a', [gate])).allowed, true);
    await local.hit([gate], at(1), 'failure');
    const blocked = await local.hit([{ key: 'key:1', limit: 60 }], at(1), 'b', [gate]);
    assert.deepEqual([blocked.allowed, blocked.blockedIndex], [false, 0]);
  });
});
