import type pg from 'pg';

/** PostgreSQL's type id of `timestamptz`, the type of every time the schema keeps. */
export const TIMESTAMPTZ_OID = 1184;

const DIGIT_0 = 48;

/**
 * node-postgres's type parsers with a cheaper one for `timestamptz`'s text form. Its own (postgres-date) runs a
 * regular expression of eight groups per value: under scenario 1 (a page of 25 calls, four times each) that match
 * and its strings were 58 of the 196 KB a request allocated (bench/probes/memory.ts, docs/performance.md,
 * seventeenth section), garbage that made the collector run every 70 ms at half load. This one reads the digits in
 * place and hands anything it does not know (infinity, BC, a year outside 1000–9999, an offset with seconds) to
 * the library's parser, so both give the same `Date` for every value (pinned by timestamps.test.ts).
 */
export function withFastTimestamps(base: typeof pg.types): pg.CustomTypesConfig {
  const slow = base.getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => unknown;
  const parse = (text: string) => parseTimestamptz(text) ?? slow(text);
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === TIMESTAMPTZ_OID && format !== 'binary'
        ? parse
        : base.getTypeParser(oid, format ?? 'text')) as pg.CustomTypesConfig['getTypeParser'],
  };
}

/** The decimal number of `count` digits at `at`, or -1 if one of them is not a digit. */
function digitsAt(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const d = text.charCodeAt(i) - DIGIT_0;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

/**
 * `YYYY-MM-DD HH:MM:SS[.f…](+|-)HH[:MM]` as a Date (milliseconds truncated, as postgres-date does), or null for
 * any other text.
 */
export function parseTimestamptz(text: string): Date | null {
  const n = text.length;
  if (n < 22) return null;
  if (text[4] !== '-' || text[7] !== '-' || text[10] !== ' ' || text[13] !== ':' || text[16] !== ':')
    return null;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  if (year < 1000 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return null;
  let at = 19;
  let ms = 0;
  if (text[at] === '.') {
    at++;
    let digits = 0;
    for (; at < n; at++) {
      const d = text.charCodeAt(at) - DIGIT_0;
      if (d < 0 || d > 9) break;
      if (digits < 3) ms = ms * 10 + d;
      digits++;
    }
    if (digits === 0) return null;
    for (; digits < 3; digits++) ms *= 10;
  }
  const sign = text[at] === '+' ? 1 : text[at] === '-' ? -1 : 0;
  if (sign === 0) return null;
  const offsetHours = digitsAt(text, at + 1, 2);
  let offsetMinutes = 0;
  if (at + 3 === n) {
    // ±HH
  } else if (at + 6 === n && text[at + 3] === ':') {
    offsetMinutes = digitsAt(text, at + 4, 2);
  } else return null;
  if (offsetHours < 0 || offsetMinutes < 0) return null;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  return new Date(utc - sign * (offsetHours * 3_600_000 + offsetMinutes * 60_000));
}
