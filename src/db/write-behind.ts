import type { Logger } from 'pino';
import type { BackgroundLane } from './background-lane.ts';

export type WriteBehind<T> = {
  /** Adds (or merges into) the pending item under `key`; a flush follows within the interval. */
  add(key: string, item: T): void;
  /** Items not written yet, for reads that must include them. */
  pending(): Iterable<T>;
  /** Writes what is pending now; concurrent calls are serialized. */
  flush(): Promise<void>;
  /** Flushes, outside the lane, and stops the timer (shutdown). */
  stop(): Promise<void>;
};

/**
 * A flush of ~3,250 usage rows in one statement took PostgreSQL 42–75 ms; on PGlite, whose one session runs one
 * statement at a time, every request's query waited behind it (docs/performance.md, "2026-11-26 (tenth)").
 */
export const ITEMS_PER_WRITE = 200;

/**
 * Collects small writes in memory and writes them every `flushMs`, so that counters and timestamps touched by every
 * request cost a few statements per interval instead of one per request. A flush writes at most `maxPerWrite` items
 * per statement, one statement after another (in `lane`, with rests between them): requests' queries wait behind one
 * short statement, not one of thousands of rows (PGlite runs one statement at a time). A failed write keeps its items
 * and those not written yet for the next flush (merged with newer ones) rather than losing them.
 */
export function createWriteBehind<T>(o: {
  flushMs: number;
  merge: (older: T, newer: T) => T;
  write: (items: T[]) => Promise<void>;
  /** Items per statement (default `ITEMS_PER_WRITE`). */
  maxPerWrite?: number;
  /** Where the statements queue and rest, shared by the process's write-behinds (absent: back to back). */
  lane?: BackgroundLane | undefined;
  logger: Logger;
  /** Names the data in the log line of a failed flush. */
  what: string;
}): WriteBehind<T> {
  let pending = new Map<string, T>();
  let timer: NodeJS.Timeout | null = null;
  let flushing: Promise<void> = Promise.resolve();
  let stopping = false;
  // At shutdown no request waits for the database any more: the last flush goes out without the lane's rests.
  const write = (items: T[]) => (o.lane && !stopping ? o.lane.run(() => o.write(items)) : o.write(items));

  const put = (key: string, item: T) => {
    const older = pending.get(key);
    pending.set(key, older === undefined ? item : o.merge(older, item));
  };

  function schedule() {
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      void self.flush();
    }, o.flushMs);
    timer.unref();
  }

  async function writeBatch(): Promise<void> {
    const batch = [...pending];
    pending = new Map();
    const step = o.maxPerWrite ?? ITEMS_PER_WRITE;
    for (let at = 0; at < batch.length; at += step) {
      try {
        await write(batch.slice(at, at + step).map(([, item]) => item));
      } catch (err) {
        // Older than anything added meanwhile, so they merge in first.
        const newer = pending;
        pending = new Map(batch.slice(at));
        for (const [key, item] of newer) put(key, item);
        o.logger.warn({ err }, `${o.what} flush failed; will retry`);
        schedule();
        return;
      }
    }
  }

  const self: WriteBehind<T> = {
    add(key, item) {
      put(key, item);
      schedule();
    },
    pending: () => pending.values(),
    flush() {
      flushing = flushing.then(writeBatch);
      return flushing;
    },
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await self.flush();
    },
  };
  return self;
}
