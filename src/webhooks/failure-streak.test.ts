import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../clock.ts';
import {
  AUTO_DISABLE_AFTER,
  FAILURE_FOLD_MS,
  runStreak,
  type StreakState,
  type StreakStep,
} from './failure-streak.ts';

const T0 = Date.parse('2026-11-23T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);
/** An attempt that started at `startMs` (after T0) and took `latencyMs`. */
const step = (kind: StreakStep['kind'], startMs: number, latencyMs = 1): StreakStep => ({
  kind,
  startedAt: at(startMs),
  endedAt: at(startMs + latencyMs),
});
/** Failures whose attempts start `gapMs` apart (each taking 1 ms), from `fromMs`. */
const failuresEvery = (gapMs: number, n: number, fromMs = 0): StreakStep[] =>
  Array.from({ length: n }, (_, i) => step('failed', fromMs + i * gapMs));
const active = (failures: number, countedAt: Date | null = null): StreakState => ({
  failures,
  active: true,
  countedAt,
});

describe('consecutive failures: one per outage of a few seconds, in the order attempts finished', () => {
  it('failures seconds apart each count; a delivery resets the count', () => {
    const apart = failuresEvery(FAILURE_FOLD_MS + 1, 3);
    assert.deepEqual(runStreak(active(4), apart), {
      failures: 7,
      countedAt: at(2 * (FAILURE_FOLD_MS + 1) + 1),
      disabled: null,
    });
    const reset = runStreak(active(8, at(-60_000)), [
      step('failed', 0),
      step('delivered', 10),
      step('failed', 20),
    ]);
    assert.deepEqual(reset, { failures: 1, countedAt: at(21), disabled: null });
    assert.deepEqual(runStreak(active(3, at(0)), [step('delivered', 1)]), {
      failures: 0,
      countedAt: null,
      disabled: null,
    });
  });

  it('a failure starting within the fold window after the last counted one ended is folded, at the window it is not', () => {
    const counted = at(-10);
    const inside = runStreak(active(2, counted), [step('failed', FAILURE_FOLD_MS - 11)]);
    assert.deepEqual(inside, { failures: 2, countedAt: counted, disabled: null });
    const edge = runStreak(active(2, counted), [step('failed', FAILURE_FOLD_MS - 10)]);
    assert.deepEqual(edge, { failures: 3, countedAt: at(FAILURE_FOLD_MS - 9), disabled: null });
    assert.equal(
      runStreak(active(2, null), [step('failed', 0)]).failures,
      3,
      'a count with no time: the next counts',
    );
  });

  it('attempts that began while the counted one hung (a timeout) are folded into it, however late they end', () => {
    const hung = [
      step('failed', 0, 10_000),
      ...failuresEvery(100, 4, 100).map((s) => ({ ...s, endedAt: at(10_200) })),
    ];
    assert.deepEqual(runStreak(active(0), hung), { failures: 1, countedAt: at(10_000), disabled: null });
  });

  it('a 2-second outage under a burst of 1,000 events/s (2,000 failed attempts, 5 at a time) counts 1 and never disables', () => {
    const clock = new ManualClock(at(0));
    const steps: StreakStep[] = [];
    for (let i = 0; i < 2_000; i++) {
      const startedAt = clock.now();
      // Five slots: each failure is answered within 1–5 ms.
      steps.push({ kind: 'failed', startedAt, endedAt: new Date(startedAt.getTime() + 1 + (i % 5)) });
      clock.advance(1);
    }
    for (let i = 0; i < 1_000; i++) {
      steps.push(step('delivered', clock.now().getTime() - T0));
      clock.advance(1);
    }
    let state = active(0);
    let worst = 0;
    // Recorded in batches of 50, as the worker does.
    for (let i = 0; i < steps.length; i += 50) {
      const r = runStreak(state, steps.slice(i, i + 50));
      assert.equal(r.disabled, null);
      worst = Math.max(worst, r.failures);
      state = { ...state, failures: r.failures, countedAt: r.countedAt };
    }
    assert.equal(worst, 1);
    assert.equal(state.failures, 0);
  });

  it('a receiver down for good under 1,000 events/s is disabled at exactly the tenth counted failure', () => {
    const clock = new ManualClock(at(0));
    const steps: StreakStep[] = [];
    for (let i = 0; i < 60_000; i++) {
      steps.push(step('failed', clock.now().getTime() - T0));
      clock.advance(1);
    }
    const r = runStreak(active(0), steps);
    // Counted at 0, 5,001, 10,002 … ms: the tenth is the attempt that started at 9 × (window + 1 ms).
    const tenth = (AUTO_DISABLE_AFTER - 1) * (FAILURE_FOLD_MS + 1);
    assert.deepEqual(r.disabled, { step: tenth, reason: '10 consecutive delivery failures' });
    assert.equal(runStreak(active(0), steps.slice(0, tenth)).disabled, null, 'not at the ninth');
    assert.equal(runStreak(active(0), steps.slice(0, tenth)).failures, AUTO_DISABLE_AFTER - 1);
  });

  it('410 Gone disables at once, even inside the fold window; a subscription already disabled is not disabled again', () => {
    assert.deepEqual(runStreak(active(0), [step('failed', 0), step('gone', 10), step('delivered', 20)]), {
      failures: 0,
      countedAt: null,
      disabled: { step: 1, reason: 'receiver answered 410 Gone' },
    });
    const disabled = runStreak({ failures: 10, active: false, countedAt: at(-60_000) }, [
      step('gone', 0),
      step('failed', 10_000),
    ]);
    assert.deepEqual(disabled, { failures: 12, countedAt: at(10_001), disabled: null });
  });
});
