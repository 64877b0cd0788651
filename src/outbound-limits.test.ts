import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_OUTBOUND_LIMITS,
  effectiveOutbound,
  formatCap,
  isCapAmount,
  isRegion,
  keyDefaults,
  limitIssues,
  NON_GEOGRAPHIC_REGIONS,
  normalizeRegions,
  type OutboundLimits,
} from './outbound-limits.ts';

const US_CA = DEFAULT_OUTBOUND_LIMITS;
const fields = (issues: { path: string[] }[]) => issues.map((i) => i.path.join('.'));

describe('outbound limits: what a region is', () => {
  it('names every non-geographic calling code by +code, from the phone metadata', () => {
    assert.deepEqual(NON_GEOGRAPHIC_REGIONS, [
      '+800',
      '+808',
      '+870',
      '+878',
      '+881',
      '+882',
      '+883',
      '+888',
      '+979',
    ]);
  });

  for (const token of ['US', 'CA', 'GB', 'KP', 'CU', 'SO', 'IR', 'SY', '+800', '+882', '+883', '+979']) {
    it(`accepts ${token}`, () => assert.equal(isRegion(token), true));
  }
  for (const token of ['XX', 'us', 'USA', '', '+1', '+44', '+850', '882', '+8820', 'ZZ', '001', '+001']) {
    it(`refuses ${JSON.stringify(token)}`, () => assert.equal(isRegion(token), false));
  }

  it('reads what people type: trimmed, upper case, each once', () => {
    assert.deepEqual(normalizeRegions([' us', 'Ca ', 'US', '', '+882']), ['US', 'CA', '+882']);
  });
});

describe('outbound limits: caps', () => {
  for (const [amount, ok] of [
    ['0', true],
    ['100', true],
    ['100.5', true],
    ['9999999999.99', true],
    ['12.345', false],
    ['-1', false],
    ['1e3', false],
    ['', false],
    ['10000000000', false],
  ] as const) {
    it(`${JSON.stringify(amount)} is ${ok ? '' : 'not '}a cap`, () => assert.equal(isCapAmount(amount), ok));
  }
  it('writes caps as the database reads them back', () => {
    assert.deepEqual(['0', '42.5', '100', '7.05'].map(formatCap), ['0.00', '42.50', '100.00', '7.05']);
  });
});

describe('outbound limits: a key inside its customer', () => {
  const table: { key: { countries: string[]; capUsd: string }; limits: OutboundLimits; refused: string[] }[] =
    [
      { key: { countries: ['US', 'CA'], capUsd: '100.00' }, limits: US_CA, refused: [] },
      { key: { countries: ['US'], capUsd: '0' }, limits: US_CA, refused: [] },
      { key: { countries: [], capUsd: '99.99' }, limits: US_CA, refused: [] },
      { key: { countries: ['US', 'GB'], capUsd: '100.00' }, limits: US_CA, refused: ['allowed_countries'] },
      { key: { countries: ['US'], capUsd: '100.01' }, limits: US_CA, refused: ['daily_spend_cap_usd'] },
      // The issue's scenario.
      {
        key: { countries: ['KP', 'CU', 'SO', 'IR', 'SY'], capUsd: '9999999999.99' },
        limits: US_CA,
        refused: ['allowed_countries', 'daily_spend_cap_usd'],
      },
      // A code of no country only where the limits name it.
      { key: { countries: ['+882'], capUsd: '1' }, limits: US_CA, refused: ['allowed_countries'] },
      {
        key: { countries: ['+882'], capUsd: '1' },
        limits: { countries: ['US', '+882'], maxDailyCapUsd: '5' },
        refused: [],
      },
      {
        key: { countries: ['+882', '+883'], capUsd: '1' },
        limits: { countries: ['US', '+882'], maxDailyCapUsd: '5' },
        refused: ['allowed_countries'],
      },
      {
        key: { countries: ['GB'], capUsd: '200.00' },
        limits: { countries: ['GB'], maxDailyCapUsd: '200' },
        refused: [],
      },
      {
        key: { countries: ['US'], capUsd: '0.01' },
        limits: { countries: [], maxDailyCapUsd: '0' },
        refused: ['allowed_countries', 'daily_spend_cap_usd'],
      },
    ];
  for (const { key, limits, refused } of table) {
    it(`${key.countries.join(',') || '(none)'} at ${key.capUsd} within ${limits.countries.join(',') || '(none)'} at ${limits.maxDailyCapUsd}: ${refused.length ? `refuses ${refused.join(', ')}` : 'allowed'}`, () => {
      assert.deepEqual(fields(limitIssues(key, limits)), refused);
    });
  }

  it('names the field and the bound', () => {
    const issues = limitIssues({ countries: ['KP', 'US', 'CU'], capUsd: '9999999999.99' }, US_CA);
    assert.deepEqual(issues, [
      {
        path: ['allowed_countries'],
        message: 'KP, CU are outside the countries this customer may call (US, CA), set by the operator.',
      },
      {
        path: ['daily_spend_cap_usd'],
        message: 'Must be at most 100.00, the largest daily cap the operator allows this customer.',
      },
    ]);
  });

  it('leaves a cap that is no amount to the format check', () => {
    assert.deepEqual(limitIssues({ countries: [], capUsd: 'lots' }, US_CA), []);
  });
});

describe('outbound limits: what a key can do', () => {
  it('is its allowlist within the regions, and the lower cap', () => {
    assert.deepEqual(effectiveOutbound({ countries: ['US', 'GB', '+882'], capUsd: '500.00' }, US_CA), {
      countries: ['US'],
      capUsd: '100.00',
      narrowed: true,
    });
    assert.deepEqual(effectiveOutbound({ countries: ['US'], capUsd: '100.00' }, US_CA), {
      countries: ['US'],
      capUsd: '100.00',
      narrowed: false,
    });
    assert.deepEqual(effectiveOutbound({ countries: ['CA'], capUsd: '25.5' }, US_CA), {
      countries: ['CA'],
      capUsd: '25.50',
      narrowed: false,
    });
    assert.equal(effectiveOutbound({ countries: ['US'], capUsd: '100.01' }, US_CA).narrowed, true);
  });

  it('gives a new key US and CA within its customer, else all of its regions, and never a cap above its largest', () => {
    assert.deepEqual(keyDefaults(US_CA), { countries: ['US', 'CA'], capUsd: '100.00' });
    assert.deepEqual(keyDefaults({ countries: ['CA', 'GB'], maxDailyCapUsd: '500.00' }), {
      countries: ['CA'],
      capUsd: '100.00',
    });
    assert.deepEqual(keyDefaults({ countries: ['GB', 'IE'], maxDailyCapUsd: '20' }), {
      countries: ['GB', 'IE'],
      capUsd: '20.00',
    });
    for (const limits of [US_CA, { countries: ['+882'], maxDailyCapUsd: '0' }]) {
      assert.deepEqual(limitIssues(keyDefaults(limits), limits), [], 'the defaults always lie inside');
    }
  });
});
