import type { Bucket, BucketState, HitResult, RateLimiter } from './interface.ts';
import { WINDOW_MS } from './interface.ts';
import { bucketState, prune } from './sliding-window.ts';

/** One instance's limiter: exact, in memory, lost on restart. */
export function createMemoryLimiter(): RateLimiter {
  const windows = new Map<string, number[]>();
  let lastSweep = 0;

  // Buckets untouched for a whole window are empty: drop them so memory follows live traffic.
  function sweep(nowMs: number) {
    if (nowMs - lastSweep < WINDOW_MS) return;
    lastSweep = nowMs;
    for (const [key, times] of windows) {
      const newest = times[times.length - 1];
      if (newest === undefined || newest <= nowMs - WINDOW_MS) windows.delete(key);
    }
  }

  function stateOf(bucket: Bucket, nowMs: number): BucketState {
    const times = windows.get(bucket.key) ?? [];
    prune(times, nowMs);
    return bucketState(bucket.limit, times.length, times[0] ?? null, times[times.length - 1] ?? null, nowMs);
  }

  return {
    async hit(buckets, now, _requestId, gates = []): Promise<HitResult> {
      const nowMs = now.getTime();
      sweep(nowMs);
      const all = [...gates, ...buckets];
      const before = all.map((b) => stateOf(b, nowMs));
      const blockedIndex = before.findIndex((s) => s.remaining === 0);
      if (blockedIndex >= 0) return { allowed: false, states: before, blockedIndex };
      for (const b of buckets) {
        const times = windows.get(b.key) ?? [];
        times.push(nowMs);
        windows.set(b.key, times);
      }
      return { allowed: true, states: all.map((b) => stateOf(b, nowMs)), blockedIndex: -1 };
    },
    // Entries of the same millisecond are interchangeable in a count, so removing one at `now` is exact.
    async refund(buckets, now) {
      const nowMs = now.getTime();
      for (const b of buckets) {
        const times = windows.get(b.key);
        const at = times?.lastIndexOf(nowMs) ?? -1;
        if (at >= 0) times?.splice(at, 1);
      }
    },
    async peek(bucket, now) {
      return stateOf(bucket, now.getTime());
    },
    async close() {},
  };
}
