import { WINDOW_MS } from './interface.ts';

/** Requests another store counted in a bucket: how many, and the times of the oldest and the newest (ms). */
export type Held = { count: number; oldest: number; newest: number };

/** What a bucket still holds from elsewhere at `nowMs`, or null. */
export type HeldElsewhere = (key: string, nowMs: number) => Held | null;

/**
 * What Redis last said each bucket held, so that a request judged without Redis is counted on top of it, not
 * from empty. Only the count and the oldest and newest times come back from the script, so the entries between
 * are taken to leave with the newest: a slot may stay taken longer than in Redis, never shorter.
 */
export function createLastSeen() {
  const seen = new Map<string, Held>();
  let lastSweep = 0;

  // Buckets whose newest entry has left the window hold nothing: drop them so memory follows live traffic.
  function sweep(nowMs: number) {
    if (nowMs - lastSweep < WINDOW_MS) return;
    lastSweep = nowMs;
    for (const [key, h] of seen) if (h.newest + WINDOW_MS <= nowMs) seen.delete(key);
  }

  return {
    remember(key: string, count: number, oldest: number | null, newest: number | null, nowMs: number): void {
      sweep(nowMs);
      if (count === 0 || oldest === null || newest === null) {
        seen.delete(key);
        return;
      }
      // Updated in place: this runs for every bucket of every request.
      const h = seen.get(key);
      if (h) {
        h.count = count;
        h.oldest = oldest;
        h.newest = newest;
      } else seen.set(key, { count, oldest, newest });
    },
    held: ((key, nowMs) => {
      const h = seen.get(key);
      if (!h || h.newest + WINDOW_MS <= nowMs) return null;
      if (h.oldest + WINDOW_MS > nowMs) return h;
      return h.count > 1 ? { count: h.count - 1, oldest: h.newest, newest: h.newest } : null;
    }) satisfies HeldElsewhere,
    /** Buckets remembered (for tests of the sweep). */
    size: () => seen.size,
  };
}
