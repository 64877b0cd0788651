import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { instantFromMicros, parseInstant } from './instant.ts';

const iso = (raw: string, rounding: 'floor' | 'ceil' = 'floor') => parseInstant(raw, rounding)?.iso ?? null;

describe('parseInstant', () => {
  it('reads UTC and offsets to the same instant, exact to the microsecond', () => {
    assert.equal(iso('2026-01-15T09:30:00Z'), '2026-01-15T09:30:00.000000Z');
    assert.equal(iso('2026-01-15T04:30:00-05:00'), '2026-01-15T09:30:00.000000Z');
    assert.equal(iso('2026-01-15T15:00:00.123456+05:30'), '2026-01-15T09:30:00.123456Z');
    assert.equal(iso('2026-01-15T09:30Z'), '2026-01-15T09:30:00.000000Z');
    assert.equal(iso('2026-01-15T09:30:00+0000'), '2026-01-15T09:30:00.000000Z');
    assert.equal(iso('2026-01-01T01:00:00 01:00'), '2026-01-01T00:00:00.000000Z');
    assert.equal(parseInstant('1970-01-01T00:00:00.000001Z', 'floor')?.micros, 1n);
  });

  it('rounds nanoseconds inwards: ceil for lower bounds, floor for upper bounds', () => {
    assert.equal(iso('2026-01-01T00:00:00.0000015Z', 'ceil'), '2026-01-01T00:00:00.000002Z');
    assert.equal(iso('2026-01-01T00:00:00.0000015Z', 'floor'), '2026-01-01T00:00:00.000001Z');
    assert.equal(iso('2026-01-01T00:00:00.000002000Z', 'ceil'), '2026-01-01T00:00:00.000002Z');
  });

  it('refuses what is not an ISO-8601 date-time with an offset, or not a real time', () => {
    for (const raw of [
      '',
      '2026-01-15',
      '2026-01-15T09:30:00',
      '2026-01-15 09:30:00Z',
      '2026-1-15T09:30:00Z',
      '2026-01-15T09:30:00.Z',
      '2026-01-15T09:30:00.1234567890Z',
      '2026-02-29T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-01-32T00:00:00Z',
      '2026-01-15T24:00:00Z',
      '2026-01-15T23:60:00Z',
      '2026-01-15T23:59:60Z',
      '2026-01-15T09:30:00+15:00',
      '2026-01-15T09:30:00+01:60',
      '2026-01-15t09:30:00z',
      '1969-12-31T23:59:59Z',
      '1970-01-01T00:30:00+01:00',
      '1700000000',
    ]) {
      assert.equal(parseInstant(raw, 'floor'), null, raw);
    }
    assert.notEqual(parseInstant('2024-02-29T00:00:00Z', 'floor'), null);
    assert.notEqual(parseInstant('9999-12-31T23:59:59.999999Z', 'floor'), null);
  });

  it('instantFromMicros formats any microsecond in range and refuses the rest', () => {
    assert.equal(instantFromMicros(1_767_225_600_000_123n)?.iso, '2026-01-01T00:00:00.000123Z');
    assert.equal(instantFromMicros(-1n), null);
    assert.equal(instantFromMicros(253_402_300_800_000_000n), null);
  });
});
