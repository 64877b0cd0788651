import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUTO_DISABLE_AFTER } from './deliveries.repository.ts';
import { runStreak, type StreakStep } from './failure-streak.ts';

const failures = (n: number): StreakStep[] => Array.from({ length: n }, () => 'failed');
const active = (n: number) => ({ failures: n, active: true });

describe('a batch of attempts counts consecutive failures as if recorded one by one', () => {
  it('adds one per failure and resets on a delivery, in order', () => {
    assert.deepEqual(runStreak(active(4), ['failed', 'failed']), { failures: 6, disabled: null });
    assert.deepEqual(runStreak(active(8), ['failed', 'delivered', 'failed']), {
      failures: 1,
      disabled: null,
    });
    assert.deepEqual(runStreak(active(3), ['delivered']), { failures: 0, disabled: null });
  });

  it('disables at exactly the tenth failure, naming the step, and keeps counting after it', () => {
    assert.equal(runStreak(active(0), failures(AUTO_DISABLE_AFTER - 1)).disabled, null);
    assert.deepEqual(runStreak(active(7), failures(5)), {
      failures: 12,
      disabled: { step: 2, reason: '10 consecutive delivery failures' },
    });
  });

  it('a delivery in between starts the count again', () => {
    const steps: StreakStep[] = [...failures(5), 'delivered', ...failures(AUTO_DISABLE_AFTER - 1)];
    assert.deepEqual(runStreak(active(4), steps), { failures: 9, disabled: null });
    assert.equal(runStreak(active(4), [...steps, 'failed']).disabled?.step, steps.length);
  });

  it('410 Gone disables at once; a subscription already disabled is not disabled again', () => {
    assert.deepEqual(runStreak(active(0), ['failed', 'gone', 'delivered']), {
      failures: 0,
      disabled: { step: 1, reason: 'receiver answered 410 Gone' },
    });
    assert.deepEqual(runStreak({ failures: 10, active: false }, ['gone', 'failed']), {
      failures: 12,
      disabled: null,
    });
  });
});
