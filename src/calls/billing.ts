/**
 * Billing: per started minute of conversation at one flat rate. Money is handled as integer
 * ten-thousandths of a dollar (bigint), matching numeric(12,4) in the database, never as a float.
 */
export const RATE_PER_MINUTE_USD = '0.0900';
/** The provider hangs up every outbound call at this length, so it bounds what a call can cost. */
export const MAX_CALL_SECONDS = 600;

const SCALE = 10_000n;
const AMOUNT_RE = /^(\d{1,12})(?:\.(\d{1,4}))?$/;

export function toUnits(usd: string): bigint {
  const m = AMOUNT_RE.exec(usd.trim());
  if (!m?.[1]) throw new Error(`Not a money amount: ${usd}`);
  return BigInt(m[1]) * SCALE + BigInt((m[2] ?? '').padEnd(4, '0'));
}

/** Decimal string with 4 places (2 with `places: 2`, rounded down). */
export function formatUsd(units: bigint, places: 2 | 4 = 4): string {
  const sign = units < 0n ? '-' : '';
  const abs = units < 0n ? -units : units;
  const frac = String(abs % SCALE).padStart(4, '0');
  return `${sign}${abs / SCALE}.${frac.slice(0, places)}`;
}

/** Seconds billed: whole started minutes of an answered call; nothing for an unanswered one. */
export const billableSeconds = (durationSeconds: number, answered: boolean): number =>
  answered ? Math.ceil(Math.max(0, durationSeconds) / 60) * 60 : 0;

export const costUnits = (billable: number): bigint =>
  BigInt(Math.ceil(billable / 60)) * toUnits(RATE_PER_MINUTE_USD);

/** What a call is reserved against the daily cap while in flight: the most it can cost. */
export const ESTIMATE_UNITS = costUnits(MAX_CALL_SECONDS);
