/** Consecutive counted failures that disable a subscription (spec 3.3). */
export const AUTO_DISABLE_AFTER = 10;

/**
 * A failed attempt that starts within this long after the last counted failure ended is folded into it: under a
 * burst, one outage of a few seconds fails many concurrent attempts at once, and a customer reads "10 consecutive
 * failed deliveries" as ten separate failures, not ten requests of the same blip. Shorter than the first retry
 * (10 s, at least 8 s with jitter), so the retries of one delivery each count.
 */
export const FAILURE_FOLD_MS = 5_000;

/** The failure count a subscription is close to the limit at (the dashboard flags it). */
export const FAILURES_NEAR_LIMIT = AUTO_DISABLE_AFTER - 3;

export type StreakStep = { kind: 'delivered' | 'failed' | 'gone'; startedAt: Date; endedAt: Date };

/** A subscription's count, and when the last counted failure's attempt ended (null when the count is 0). */
export type StreakState = { failures: number; active: boolean; countedAt: Date | null };

export type StreakResult = {
  failures: number;
  countedAt: Date | null;
  /** The step that disabled the subscription, and why; null when it stays as it was. */
  disabled: { step: number; reason: string } | null;
};

/**
 * A subscription's consecutive-failure count after `steps`, its attempts in the order they finished, as if each
 * had been recorded alone: a delivery resets the count; a failure adds one unless its attempt started less than
 * FAILURE_FOLD_MS after the last counted failure ended (then it is folded into that one); an active subscription
 * is disabled at exactly AUTO_DISABLE_AFTER counted failures, or at once by a 410 Gone.
 */
export function runStreak(start: StreakState, steps: StreakStep[]): StreakResult {
  let { failures, active, countedAt } = start;
  let disabled: StreakResult['disabled'] = null;
  for (const [i, step] of steps.entries()) {
    if (step.kind === 'delivered') {
      failures = 0;
      countedAt = null;
      continue;
    }
    const folded =
      step.kind === 'failed' &&
      countedAt !== null &&
      step.startedAt.getTime() < countedAt.getTime() + FAILURE_FOLD_MS;
    if (folded) continue;
    failures += 1;
    countedAt = step.endedAt;
    if (active && (step.kind === 'gone' || failures >= AUTO_DISABLE_AFTER)) {
      active = false;
      disabled = {
        step: i,
        reason:
          step.kind === 'gone'
            ? 'receiver answered 410 Gone'
            : `${AUTO_DISABLE_AFTER} consecutive delivery failures`,
      };
    }
  }
  return { failures, countedAt, disabled };
}
