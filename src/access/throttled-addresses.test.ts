import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createThrottledAddresses } from './throttled-addresses.ts';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);
const full = { limit: 10, remaining: 0, resetAt: at(60_000), retryAfterSeconds: 30 };

describe('throttled addresses', () => {
  it('holds a full window until its Retry-After has passed, counting the wait down', () => {
    const t = createThrottledAddresses();
    t.note('10.0.0.1', full, at(0));
    assert.equal(t.check('10.0.0.1', at(10_500))?.retryAfterSeconds, 20);
    assert.deepEqual(t.check('10.0.0.1', at(29_999)), { ...full, retryAfterSeconds: 1 });
    assert.equal(t.check('10.0.0.1', at(30_000)), null);
    assert.equal(t.check('10.0.0.2', at(0)), null);
  });

  it('keeps nothing for a window with room', () => {
    const t = createThrottledAddresses();
    t.note('10.0.0.1', { ...full, remaining: 1, retryAfterSeconds: 0 }, at(0));
    assert.equal(t.check('10.0.0.1', at(0)), null);
  });
});
