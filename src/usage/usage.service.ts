import type { Logger } from 'pino';
import { type Clock, utcDay } from '../clock.ts';
import type { BackgroundLane, Database } from '../db/index.ts';
import { createWriteBehind } from '../db/index.ts';
import * as repo from './usage.repository.ts';

/** Requests and errors of one key on one UTC day. */
export type KeyDayCount = { keyId: string; day: string; requests: number; errors: number };

const keyDay = (d: { keyId: string; day: string }) => `${d.keyId}|${d.day}`;

/**
 * Counts API requests per key per UTC day without writing on the request path: `record` only adds to
 * an in-memory map; `flush` (every few seconds, and when the app closes) upserts the sums, at most
 * `ITEMS_PER_WRITE` rows per statement.
 */
export function createUsageService(deps: {
  db: Database;
  clock: Clock;
  logger: Logger;
  flushMs?: number;
  /** The process's lane for background writes (absent: statements back to back). */
  backgroundWrites?: BackgroundLane;
}) {
  const { db, clock } = deps;
  const counts = createWriteBehind<repo.UsageDelta>({
    flushMs: deps.flushMs ?? 5_000,
    // Adds into the pending count itself: a new object per request would live until the flush, long enough for V8 to
    // copy it into its old space as garbage.
    merge: (pending, d) => {
      pending.requests += d.requests;
      pending.errors += d.errors;
      return pending;
    },
    write: (deltas) => repo.addUsage(db, deltas),
    lane: deps.backgroundWrites,
    logger: deps.logger,
    what: 'usage counter',
  });

  return {
    /** One API request by a key (any answer); errors are answers with status >= 400. */
    record(keyId: string, customerId: string, status: number): void {
      const delta = {
        keyId,
        customerId,
        day: utcDay(clock.now()),
        requests: 1,
        errors: status >= 400 ? 1 : 0,
      };
      counts.add(keyDay(delta), delta);
    },

    flush: counts.flush,
    stop: counts.stop,

    /** The customer's counts per key and day from `fromDay` on, counts not yet flushed by this process included. */
    async requestsSince(customerId: string, fromDay: string): Promise<KeyDayCount[]> {
      const sums = new Map<string, KeyDayCount>();
      const add = (d: KeyDayCount) => {
        const cur = sums.get(keyDay(d));
        sums.set(
          keyDay(d),
          cur ? { ...cur, requests: cur.requests + d.requests, errors: cur.errors + d.errors } : d,
        );
      };
      for (const r of await repo.requestsByKeyAndDay(db, customerId, fromDay)) add(r);
      for (const d of counts.pending())
        if (d.customerId === customerId && d.day >= fromDay)
          add({ keyId: d.keyId, day: d.day, requests: d.requests, errors: d.errors });
      return [...sums.values()];
    },
  };
}

export type UsageService = ReturnType<typeof createUsageService>;
