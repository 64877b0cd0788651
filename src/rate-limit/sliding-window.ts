import { type BucketState, WINDOW_MS } from './interface.ts';

/**
 * The arithmetic both limiters share. `count` requests lie inside the window (now - 60 s, now];
 * `oldest` and `newest` are their times in ms (null when the window is empty).
 */
export function bucketState(
  limit: number,
  count: number,
  oldest: number | null,
  newest: number | null,
  nowMs: number,
): BucketState {
  const remaining = Math.max(0, limit - count);
  const resetAt = new Date(newest === null ? nowMs : newest + WINDOW_MS);
  const retryAfterSeconds =
    remaining > 0 || oldest === null ? 0 : Math.max(1, Math.ceil((oldest + WINDOW_MS - nowMs) / 1000));
  return { limit, remaining, resetAt, retryAfterSeconds };
}

/** Drops the entries that have left the window; `times` is sorted ascending. */
export function prune(times: number[], nowMs: number): void {
  const cutoff = nowMs - WINDOW_MS;
  let drop = 0;
  while (drop < times.length && (times[drop] ?? 0) <= cutoff) drop++;
  if (drop > 0) times.splice(0, drop);
}
