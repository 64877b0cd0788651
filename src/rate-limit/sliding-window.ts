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
