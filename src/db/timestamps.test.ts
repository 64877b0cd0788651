import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { parseTimestamptz, TIMESTAMPTZ_OID, withFastTimestamps } from './timestamps.ts';

const library = pg.types.getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => Date | number | null;
const fast = withFastTimestamps(pg.types).getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => unknown;

/** The same value from both parsers: the same instant, or the same non-Date answer. */
function assertSame(text: string) {
  const expected = library(text);
  const actual = fast(text);
  if (expected instanceof Date) {
    assert.ok(actual instanceof Date, text);
    assert.equal(actual.getTime(), expected.getTime(), text);
  } else assert.deepEqual(actual, expected, text);
}

describe('timestamptz parser', () => {
  it('reads in place what PostgreSQL writes, to the same instant as postgres-date', () => {
    for (const text of [
      '2026-11-28 18:20:11+00',
      '2026-11-28 18:20:11.1+00',
      '2026-11-28 18:20:11.12+00',
      '2026-11-28 18:20:11.123+00',
      '2026-11-28 18:20:11.1234+00',
      '2026-11-28 18:20:11.999999+00',
      '2026-11-28 18:20:11.000001+00',
      '2026-01-01 00:00:00.29+00',
      '2026-11-28 18:20:11.5+05:30',
      '2026-11-28 01:20:11-08',
      '2026-03-01 00:30:00.25-03:30',
      '1000-01-01 00:00:00+00',
      '9999-12-31 23:59:59.999999+14',
    ]) {
      assert.ok(parseTimestamptz(text) instanceof Date, `${text} takes the fast path`);
      assertSame(text);
    }
  });

  it('hands what it does not read to postgres-date, which answers as before', () => {
    for (const text of [
      'infinity',
      '-infinity',
      '2026-11-28 18:20:11+05:30:15',
      '0050-06-01 12:00:00+00',
      '0999-06-01 12:00:00+00',
      '10000-01-01 00:00:00+00',
      '2026-11-28 18:20:11+00 BC',
      '2026-11-28 18:20:11.+00',
      '2026-11-28T18:20:11+00',
      '2026-11-28 18:20:11Z',
      '2026-11-28 18:20:11',
      '2026-11-28',
      'yesterday at noon',
    ]) {
      assert.equal(parseTimestamptz(text), null, `${text} is not read in place`);
      assertSame(text);
    }
  });

  it('agrees with postgres-date on 20,000 random instants, every precision and several offsets', () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const pad = (v: number, width = 2) => String(v).padStart(width, '0');
    const offsets = ['+00', '-08', '+05:30', '+14', '-03:30', '+09'];
    for (let i = 0; i < 20_000; i++) {
      const d = new Date(Date.UTC(1970, 0, 1) + Math.floor(random() * 4_000_000_000_000));
      const micros = pad(Math.floor(random() * 1_000_000), 6).slice(0, Math.floor(random() * 7));
      const fraction = micros.replace(/0+$/, '');
      const text =
        `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
        `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}` +
        `${fraction ? `.${fraction}` : ''}${offsets[i % offsets.length]}`;
      assertSame(text);
    }
  });

  it('leaves every other type to node-postgres', () => {
    const types = withFastTimestamps(pg.types);
    for (const oid of [20, 23, 25, 1082, 1114, 3802])
      assert.equal(types.getTypeParser(oid, 'text'), pg.types.getTypeParser(oid, 'text'), `type ${oid}`);
  });
});
