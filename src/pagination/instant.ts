/**
 * Timestamps at PostgreSQL's precision (microseconds). JavaScript dates stop at milliseconds, so
 * pagination positions and `from`/`to` bounds travel as integer microseconds and as exact text.
 */
export type Instant = {
  /** Microseconds since 1970-01-01T00:00:00Z. */
  micros: bigint;
  /** The same instant as UTC ISO-8601 text with six fraction digits, exact for a `::timestamptz` cast. */
  iso: string;
};

const MIN_MICROS = 0n;
// 9999-12-31T23:59:59.999999Z
const MAX_MICROS = 253_402_300_799_999_999n;

export function instantFromMicros(micros: bigint): Instant | null {
  if (micros < MIN_MICROS || micros > MAX_MICROS) return null;
  const ms = micros / 1000n;
  const sub = String(micros % 1000n).padStart(3, '0');
  return { micros, iso: `${new Date(Number(ms)).toISOString().slice(0, 23)}${sub}Z` };
}

const ISO_RE =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+\- ])(\d{2}):?(\d{2}))$/;

export const TIMESTAMP_HINT =
  'Must be an ISO-8601 date-time with a UTC offset, e.g. 2026-01-15T09:30:00Z or 2026-01-15T09:30:00.250-05:00.';

/**
 * Parses ISO-8601 / RFC 3339 with a mandatory offset (`Z` or `±hh:mm`); up to nine fraction digits,
 * rounded to microseconds in the direction given (`ceil` for lower bounds, `floor` for upper bounds,
 * so a bound never admits a row outside it). A space in place of `+` is read as `+`: an unencoded `+`
 * in a query string arrives as a space.
 */
export function parseInstant(raw: string, rounding: 'floor' | 'ceil'): Instant | null {
  const m = ISO_RE.exec(raw);
  if (!m) return null;
  const n = (i: number): number => Number(m[i] ?? 0);
  const [year, month, day, hour, minute, second] = [n(1), n(2), n(3), n(4), n(5), n(6)] as const;
  const [oh, om] = [n(10), n(11)] as const;
  const frac = m[7] ?? '';
  const offsetMinutes = m[8] ? 0 : (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  if (hour > 23 || minute > 59 || second > 59 || oh > 14 || om > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    return null; // e.g. February 30th
  }
  const nanos = BigInt(frac.padEnd(9, '0'));
  const wholeMicros = nanos / 1000n;
  const micros =
    BigInt(date.getTime() - offsetMinutes * 60_000) * 1000n +
    wholeMicros +
    (rounding === 'ceil' && nanos % 1000n !== 0n ? 1n : 0n);
  return instantFromMicros(micros);
}
