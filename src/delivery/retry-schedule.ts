/**
 * Delay before the next attempt after `attempts` failed ones (1-based), in seconds, before jitter:
 * 10 s, 30 s, 1 min, 5 min, 15 min, 30 min, 1 h, 2 h, 4 h, 8 h, 12 h, 24 h; after the 12th failure the
 * delivery is given up (about 2.5 days in all). A subscription auto-disables after 10 consecutive failures.
 */
export const RETRY_DELAYS_SECONDS = [
  10, 30, 60, 300, 900, 1800, 3600, 7200, 14_400, 28_800, 43_200, 86_400,
] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** ±20 % jitter spreads retries of a burst so a recovering receiver is not hit all at once. */
export function nextAttemptDelayMs(
  failedAttempts: number,
  random: () => number = Math.random,
): number | null {
  const base = RETRY_DELAYS_SECONDS[failedAttempts - 1];
  if (base === undefined) return null;
  return Math.round(base * 1000 * (0.8 + 0.4 * random()));
}
