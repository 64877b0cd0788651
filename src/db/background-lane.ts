import { setTimeout as sleepFor } from 'node:timers/promises';

/** Runs a process's background writes one at a time, each followed by a rest (see `createBackgroundLane`). */
export type BackgroundLane = { run<T>(write: () => Promise<T>): Promise<T> };

/**
 * The share of the database's time the write-behind's statements may take together. On PGlite, whose one session
 * runs one statement at a time, a flush of 10,000 keys' uses written back to back held the session for ~135 ms, a
 * stretch in which requests arriving at half load found a queue: GET /calls's p99 at half load read 1.5–2.3× the
 * floor's with those writes, 0.7–1.1× without them (docs/performance.md, sixteenth and seventeenth sections).
 */
export const BACKGROUND_BUSY_SHARE = 0.2;

/**
 * One lane for the background writes of one process (usage counts, keys' `last_used_at`): a write waits for the one
 * before it and for that one's rest, `elapsed × (1 ÷ busyShare − 1)`, so that together they take at most `busyShare`
 * of the time and requests' queries never find more than one background statement ahead of them. The caller's own
 * promise settles when its write does; only the next write waits out the rest. Resting costs latency on counts that
 * are already written every few seconds, never a lost write.
 */
export function createBackgroundLane(
  o: { busyShare?: number; now?: () => number; sleep?: (ms: number) => Promise<unknown> } = {},
): BackgroundLane {
  const restPerBusy = 1 / (o.busyShare ?? BACKGROUND_BUSY_SHARE) - 1;
  const now = o.now ?? (() => performance.now());
  const sleep = o.sleep ?? sleepFor;
  let free: Promise<unknown> = Promise.resolve();
  return {
    run(write) {
      let rest = 0;
      const done = free.then(async () => {
        const started = now();
        try {
          return await write();
        } finally {
          rest = (now() - started) * restPerBusy;
        }
      });
      free = done.then(
        () => sleep(rest),
        () => sleep(rest),
      );
      return done;
    },
  };
}
