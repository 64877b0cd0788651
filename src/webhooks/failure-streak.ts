import { AUTO_DISABLE_AFTER } from './deliveries.repository.ts';

export type StreakStep = 'delivered' | 'failed' | 'gone';

export type StreakResult = {
  failures: number;
  /** The step that disabled the subscription, and why; null when it stays as it was. */
  disabled: { step: number; reason: string } | null;
};

/**
 * A subscription's consecutive-failure count after `steps`, its attempts in the order they finished, as if
 * each had been recorded alone: a delivery resets the count, a failure adds one, and an active subscription
 * is disabled at exactly AUTO_DISABLE_AFTER failures, or at once by a 410 Gone.
 */
export function runStreak(start: { failures: number; active: boolean }, steps: StreakStep[]): StreakResult {
  let failures = start.failures;
  let active = start.active;
  let disabled: StreakResult['disabled'] = null;
  for (const [i, step] of steps.entries()) {
    if (step === 'delivered') {
      failures = 0;
      continue;
    }
    failures += 1;
    if (active && (step === 'gone' || failures >= AUTO_DISABLE_AFTER)) {
      active = false;
      disabled = {
        step: i,
        reason:
          step === 'gone'
            ? 'receiver answered 410 Gone'
            : `${AUTO_DISABLE_AFTER} consecutive delivery failures`,
      };
    }
  }
  return { failures, disabled };
}
