import type { BucketState, HitResult, RateLimiter } from './interface.ts';
import { WINDOW_MS } from './interface.ts';
import type { Held, HeldElsewhere } from './last-seen.ts';
import { bucketState } from './sliding-window.ts';

/** One bucket's log: request times, ascending; those before `head` have left the window. */
type Log = { times: number[]; head: number };

/**
 * Moves `head` past the entries that have left the window. The array is compacted only once the dead entries are
 * at least half of it, so a request costs O(1) amortised instead of a splice (a copy of the log) each time.
 */
export function prune(log: Log, nowMs: number): void {
  const cutoff = nowMs - WINDOW_MS;
  const { times } = log;
  let head = log.head;
  while (head < times.length && (times[head] ?? 0) <= cutoff) head++;
  if (head > 0 && head * 2 >= times.length) {
    times.splice(0, head);
    head = 0;
  }
  log.head = head;
}

const stateOf = (limit: number, log: Log | undefined, nowMs: number, held?: Held | null): BucketState => {
  const count = log ? log.times.length - log.head : 0;
  let oldest = log && count > 0 ? (log.times[log.head] ?? null) : null;
  let newest = log && count > 0 ? (log.times[log.times.length - 1] ?? null) : null;
  if (!held) return bucketState(limit, count, oldest, newest, nowMs);
  oldest = Math.min(held.oldest, oldest ?? held.oldest);
  newest = Math.max(held.newest, newest ?? held.newest);
  return bucketState(limit, count + held.count, oldest, newest, nowMs);
};

const NOTHING_ELSEWHERE: (Held | null)[] = [];

/**
 * One instance's limiter: exact, in memory, lost on restart. With `heldElsewhere` it counts on top of what
 * another store holds (Redis's last answer, while Redis cannot answer), never from empty.
 */
export function createMemoryLimiter(heldElsewhere?: HeldElsewhere): RateLimiter {
  const windows = new Map<string, Log>();
  let lastSweep = 0;

  // Buckets untouched for a whole window are empty: drop them so memory follows live traffic.
  function sweep(nowMs: number) {
    if (nowMs - lastSweep < WINDOW_MS) return;
    lastSweep = nowMs;
    for (const [key, { times }] of windows) {
      const newest = times[times.length - 1];
      if (newest === undefined || newest <= nowMs - WINDOW_MS) windows.delete(key);
    }
  }

  function live(key: string, nowMs: number): Log | undefined {
    const log = windows.get(key);
    if (log) prune(log, nowMs);
    return log;
  }

  return {
    async hit(buckets, now, _requestId, gates = []): Promise<HitResult> {
      const nowMs = now.getTime();
      sweep(nowMs);
      const all = gates.length > 0 ? [...gates, ...buckets] : buckets;
      const logs = all.map((b) => live(b.key, nowMs));
      const elsewhere = heldElsewhere ? all.map((b) => heldElsewhere(b.key, nowMs)) : NOTHING_ELSEWHERE;
      const before = all.map((b, i) => stateOf(b.limit, logs[i], nowMs, elsewhere[i]));
      const blockedIndex = before.findIndex((s) => s.remaining === 0);
      if (blockedIndex >= 0) return { allowed: false, states: before, blockedIndex };
      for (const [j, b] of buckets.entries()) {
        const i = gates.length + j;
        // A log this hit has just created (a key named twice) is in the map, not yet in `logs`.
        let log = logs[i] ?? windows.get(b.key);
        if (!log) {
          log = { times: [], head: 0 };
          windows.set(b.key, log);
        }
        log.times.push(nowMs);
        logs[i] = log;
      }
      return {
        allowed: true,
        // A gate without a log may share its key with a bucket that got one just now.
        states: all.map((b, i) => stateOf(b.limit, logs[i] ?? windows.get(b.key), nowMs, elsewhere[i])),
        blockedIndex: -1,
      };
    },
    // Entries of the same millisecond are interchangeable in a count, so removing one at `now` is exact.
    async refund(buckets, now) {
      const nowMs = now.getTime();
      for (const b of buckets) {
        const log = windows.get(b.key);
        const at = log ? log.times.lastIndexOf(nowMs) : -1;
        if (log && at >= log.head) log.times.splice(at, 1);
      }
    },
    async peek(bucket, now) {
      const nowMs = now.getTime();
      return stateOf(bucket.limit, live(bucket.key, nowMs), nowMs, heldElsewhere?.(bucket.key, nowMs));
    },
    async close() {},
  };
}
