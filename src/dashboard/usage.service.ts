import type { Logger } from 'pino';
import { type Clock, utcDay } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { createWriteBehind } from '../db/write-behind.ts';
import { checkE164 } from '../phone.ts';
import * as repo from './usage.repository.ts';

/** Sums decimal strings with 4 decimals exactly (money never goes through floating point here). */
export function addMoney(a: string, b: string): string {
  const toUnits = (s: string) => {
    const [whole = '0', frac = ''] = s.split('.');
    return BigInt(whole) * 10_000n + BigInt(`${frac}0000`.slice(0, 4));
  };
  const units = toUnits(a) + toUnits(b);
  return `${units / 10_000n}.${String(units % 10_000n).padStart(4, '0')}`;
}

export type UsageReport = {
  /** UTC days, newest first. */
  days: string[];
  requests: { keyId: string; day: string; requests: number; errors: number }[];
  spend: { keyId: string; day: string; amountUsd: string }[];
  /**
   * Outbound calls of the period per destination country: all of them; those placed with an API key and their
   * amount in the outbound ledger (what `spend` counts); the recorded cost of the others (placed without a key).
   */
  countries: {
    country: string;
    calls: number;
    keyCalls: number;
    keySpendUsd: string;
    otherCostUsd: string;
  }[];
};

const addDeltas = (a: repo.UsageDelta, b: repo.UsageDelta): repo.UsageDelta => ({
  ...a,
  requests: a.requests + b.requests,
  errors: a.errors + b.errors,
});

const keyDay = (d: { keyId: string; day: string }) => `${d.keyId}|${d.day}`;

/**
 * Counts API requests per key per UTC day without writing on the request path: `record` only adds to
 * an in-memory map; `flush` (every few seconds, and when the app closes) upserts the sums, at most
 * `ITEMS_PER_WRITE` rows per statement.
 */
export function createUsageService(deps: { db: Database; clock: Clock; logger: Logger; flushMs?: number }) {
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
    logger: deps.logger,
    what: 'usage counter',
  });

  function merge(into: Map<string, repo.UsageDelta>, d: repo.UsageDelta) {
    const k = keyDay(d);
    const cur = into.get(k);
    into.set(k, cur ? addDeltas(cur, d) : d);
  }

  const service = {
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

    /** The customer's last `days` UTC days (counts not yet flushed by this process included). */
    async report(customerId: string, days: number): Promise<UsageReport> {
      const now = clock.now();
      const dayList = Array.from({ length: days }, (_, i) =>
        utcDay(new Date(now.getTime() - i * 86_400_000)),
      );
      const fromDay = dayList[dayList.length - 1] ?? utcDay(now);
      const [stored, spend, keyed, unledgered] = await Promise.all([
        repo.requestsByKeyAndDay(db, customerId, fromDay),
        repo.spendByKeyAndDay(db, customerId, fromDay),
        repo.keySpendByNumber(db, customerId, fromDay),
        repo.unledgeredOutboundByNumber(db, customerId, new Date(`${fromDay}T00:00:00.000Z`)),
      ]);
      const requests = new Map<string, repo.UsageDelta>();
      for (const r of stored) merge(requests, { ...r, customerId });
      for (const d of counts.pending())
        if (d.customerId === customerId && d.day >= fromDay) merge(requests, d);
      const countries = new Map<string, UsageReport['countries'][number]>();
      const countryOf = (toNumber: string) => {
        const check = checkE164(toNumber);
        const country = (check.ok && check.country) || 'Unknown';
        const cur = countries.get(country) ?? {
          country,
          calls: 0,
          keyCalls: 0,
          keySpendUsd: '0',
          otherCostUsd: '0',
        };
        countries.set(country, cur);
        return cur;
      };
      for (const n of keyed) {
        const cur = countryOf(n.toNumber);
        cur.calls += n.calls;
        cur.keyCalls += n.calls;
        cur.keySpendUsd = addMoney(cur.keySpendUsd, n.amountUsd);
      }
      for (const n of unledgered) {
        const cur = countryOf(n.toNumber);
        cur.calls += n.calls;
        cur.otherCostUsd = addMoney(cur.otherCostUsd, n.costUsd);
      }
      return {
        days: dayList,
        requests: [...requests.values()].map(({ keyId, day, requests: r, errors }) => ({
          keyId,
          day,
          requests: r,
          errors,
        })),
        spend,
        countries: [...countries.values()].sort(
          (a, b) => b.calls - a.calls || a.country.localeCompare(b.country),
        ),
      };
    },
  };
  return service;
}

export type UsageService = ReturnType<typeof createUsageService>;
