import { destinationsOf, outboundCallsSince } from '../calls/index.ts';
import { type Clock, utcDay } from '../clock.ts';
import type { Database } from '../db/index.ts';
import { ledgeredCalls, spendByCall, spendByKeyAndDay } from '../outbound/index.ts';
import { checkE164 } from '../phone.ts';
import type { KeyDayCount, UsageService } from '../usage/index.ts';

/** A non-negative decimal string in units of 1/10,000, and back: money never goes through floating point here. */
const moneyUnits = (s: string): bigint => {
  const [whole = '0', frac = ''] = s.split('.');
  return BigInt(whole) * 10_000n + BigInt(`${frac}0000`.slice(0, 4));
};
const fromUnits = (units: bigint): string => `${units / 10_000n}.${String(units % 10_000n).padStart(4, '0')}`;

/** Sums decimal strings with 4 decimals exactly. */
export const addMoney = (a: string, b: string): string => fromUnits(moneyUnits(a) + moneyUnits(b));

/** `a − b`, never below zero (amounts of one ledger read at two moments may cross). */
export const subtractMoney = (a: string, b: string): string => {
  const units = moneyUnits(a) - moneyUnits(b);
  return fromUnits(units > 0n ? units : 0n);
};

export type UsageReport = {
  /** UTC days, newest first. */
  days: string[];
  requests: KeyDayCount[];
  /** The outbound ledger per key per day: calls placed and text messages sent with the key. */
  spend: { keyId: string; day: string; amountUsd: string }[];
  /** The part of `spend` that is calls (their ledger amounts); the rest is text messages. */
  callSpendUsd: string;
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

type CountryRow = UsageReport['countries'][number];

/** The usage page's report: the API's request counts (usage/), the outbound ledger, and the calls it paid for. */
export function createUsageReports(deps: { db: Database; clock: Clock; usage: UsageService }) {
  const { db, clock } = deps;

  /** Outbound calls of the period by country: ledger amounts for those placed with a key, recorded cost else. */
  async function countriesOf(
    customerId: string,
    keyed: { callId: string; amountUsd: string }[],
    recent: Awaited<ReturnType<typeof outboundCallsSince>>,
  ): Promise<CountryRow[]> {
    const [numbers, ledgered] = await Promise.all([
      destinationsOf(
        db,
        customerId,
        keyed.map((k) => k.callId),
      ),
      ledgeredCalls(
        db,
        recent.map((c) => c.id),
      ),
    ]);
    const countries = new Map<string, CountryRow>();
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
    for (const k of keyed) {
      const toNumber = numbers.get(k.callId);
      if (toNumber === undefined) continue;
      const cur = countryOf(toNumber);
      cur.calls += 1;
      cur.keyCalls += 1;
      cur.keySpendUsd = addMoney(cur.keySpendUsd, k.amountUsd);
    }
    for (const c of recent) {
      if (ledgered.has(c.id)) continue;
      const cur = countryOf(c.toNumber);
      cur.calls += 1;
      cur.otherCostUsd = addMoney(cur.otherCostUsd, c.costUsd);
    }
    return [...countries.values()].sort((a, b) => b.calls - a.calls || a.country.localeCompare(b.country));
  }

  return {
    /** The customer's last `days` UTC days (request counts not yet flushed by this process included). */
    async report(customerId: string, days: number): Promise<UsageReport> {
      const now = clock.now();
      const dayList = Array.from({ length: days }, (_, i) =>
        utcDay(new Date(now.getTime() - i * 86_400_000)),
      );
      const fromDay = dayList[dayList.length - 1] ?? utcDay(now);
      const [requests, spend, keyed, recent] = await Promise.all([
        deps.usage.requestsSince(customerId, fromDay),
        spendByKeyAndDay(db, customerId, fromDay),
        spendByCall(db, customerId, fromDay),
        outboundCallsSince(db, customerId, new Date(`${fromDay}T00:00:00.000Z`)),
      ]);
      const countries = await countriesOf(customerId, keyed, recent);
      const callSpendUsd = keyed.map((k) => k.amountUsd).reduce(addMoney, '0');
      return { days: dayList, requests, spend, callSpendUsd, countries };
    },
  };
}
