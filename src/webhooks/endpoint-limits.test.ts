import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../clock.ts';
import { createEndpointLimits } from './endpoint-limits.ts';

const TIMEOUT_MS = 10_000;

function limits(max = 5) {
  const clock = new ManualClock('2026-11-23T10:00:00.000Z');
  const l = createEndpointLimits({ max, clock });
  const share = (id: string) => l.held().get(id) ?? max;
  /** `n` attempts started now that time out `TIMEOUT_MS` later, recorded then. */
  const timeouts = (id: string, n: number) => {
    clock.advance(1);
    const startedAt = clock.now();
    clock.advance(TIMEOUT_MS);
    for (let i = 0; i < n; i++) l.record(id, { timedOut: true, startedAt });
  };
  const answered = (id: string) => l.record(id, { timedOut: false, startedAt: clock.now() });
  return { l, clock, share, timeouts, answered };
}

describe("a subscription's share of slots adapts to its receiver (AIMD)", () => {
  it('a round of timeouts halves the share once, however many attempts timed out in it', () => {
    const x = limits();
    x.timeouts('hung', 5);
    assert.equal(x.share('hung'), 2);
    x.timeouts('hung', 2);
    assert.equal(x.share('hung'), 1);
    x.timeouts('hung', 1);
    assert.equal(x.share('hung'), 1, 'never below one: a receiver that comes back is found');
    assert.equal(x.share('healthy'), 5, 'others keep their whole share');
  });

  it('a timeout of an attempt started after the last cut cuts again; one started before does not', () => {
    const x = limits(8);
    const early = x.clock.now();
    x.timeouts('s', 1);
    assert.equal(x.share('s'), 4);
    x.l.record('s', { timedOut: true, startedAt: early });
    assert.equal(x.share('s'), 4, 'same round');
    x.l.record('s', { timedOut: true, startedAt: x.clock.now() });
    assert.equal(x.share('s'), 4, 'started at the cut: same round');
    x.clock.advance(1);
    x.l.record('s', { timedOut: true, startedAt: x.clock.now() });
    assert.equal(x.share('s'), 2, 'a new round');
  });

  it('each answer in time gives one back, up to the maximum, where it is forgotten', () => {
    const x = limits();
    x.timeouts('s', 1);
    x.timeouts('s', 1);
    assert.equal(x.share('s'), 1);
    for (const expected of [2, 3, 4]) {
      x.answered('s');
      assert.equal(x.share('s'), expected);
    }
    x.answered('s');
    assert.equal(x.l.held().has('s'), false, 'back at the maximum: nothing held');
    x.answered('s');
    assert.equal(x.share('s'), 5);
  });
});
