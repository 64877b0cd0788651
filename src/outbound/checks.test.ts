import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_OUTBOUND_LIMITS, type OutboundLimits } from '../outbound-limits.ts';
import { checkE164 } from '../phone.ts';
import { numberChecks, spendCheck } from './checks.ts';

const US_CA = DEFAULT_OUTBOUND_LIMITS;
const WIDER: OutboundLimits = { countries: ['US', 'GB', '+882'], maxDailyCapUsd: '100.00' };

/** Valid numbers of no country (checkE164 accepts each, so a refusal is the allowlist's), by calling code. */
const NO_COUNTRY = {
  '+800': '+80012345678',
  '+808': '+80812345678',
  '+870': '+870301234567',
  '+878': '+878101234567890',
  '+881': '+881612345678',
  '+882': '+8823451234567',
  '+883': '+883510012345',
  '+888': '+88812345678901',
  '+979': '+979123456789',
};
const US = '+14155550199';
const CA = '+16045550123';
const GB = '+442071838750';
const KP = '+85021234567';
const CU = '+5358012345';

type Row = {
  to: string;
  key: string[];
  limits: OutboundLimits;
  bound: 'key' | 'customer' | null;
  passed: boolean;
};
const allowed = (to: string, key: string[], limits: OutboundLimits): Row => ({
  to,
  key,
  limits,
  bound: null,
  passed: true,
});
const refusedBy = (bound: 'key' | 'customer', to: string, key: string[], limits: OutboundLimits): Row => ({
  to,
  key,
  limits,
  bound,
  passed: false,
});

const TABLE: Row[] = [
  allowed(US, ['US', 'CA'], US_CA),
  allowed(CA, ['US', 'CA'], US_CA),
  allowed(GB, ['US', 'GB'], WIDER),
  allowed(NO_COUNTRY['+882'], ['US', '+882'], WIDER),
  refusedBy('key', CA, ['US'], US_CA),
  refusedBy('key', GB, ['US'], WIDER),
  refusedBy('key', NO_COUNTRY['+882'], ['US', 'GB'], WIDER),
  // Outside the customer's limits, whatever the key's own allowlist says (a key stored before they were lowered).
  refusedBy('customer', GB, ['US', 'GB'], US_CA),
  refusedBy('customer', KP, ['KP', 'CU', 'SO', 'IR', 'SY'], US_CA),
  refusedBy('customer', CU, ['US', 'CU'], US_CA),
  refusedBy('customer', CA, ['US', 'CA'], WIDER),
  refusedBy('customer', NO_COUNTRY['+882'], ['+882'], US_CA),
  refusedBy('customer', NO_COUNTRY['+883'], ['US', '+882', '+883'], WIDER),
  // Every code of no country, under the default limits and a key that allows all it can.
  ...Object.values(NO_COUNTRY).map((to) => refusedBy('customer', to, ['US', 'CA'], US_CA)),
];

describe('outbound number checks: the region against the key and its customer', () => {
  it('uses only numbers the API accepts, so each refusal below is the allowlist', () => {
    for (const { to } of TABLE) assert.equal(checkE164(to).ok, true, to);
  });

  for (const row of TABLE) {
    const name = `${row.to} with key ${row.key.join(',')} within ${row.limits.countries.join(',')}`;
    it(`${name}: ${row.passed ? 'allowed' : `refused by the ${row.bound}`}`, () => {
      const { checks } = numberChecks(row.to, row.key, row.limits);
      const country = checks.find((c) => c.name === 'country');
      assert.equal(country?.passed, row.passed);
      assert.equal(country?.bound, row.bound);
      assert.equal(country?.code, row.passed ? null : 'outbound.country_not_allowed');
    });
  }

  it('says which bound refused, and what it allows', () => {
    const byCustomer = numberChecks(GB, ['US', 'GB'], US_CA).checks[1];
    assert.equal(
      byCustomer?.detail,
      'No API key of this customer may call numbers in GB: the outbound limits the operator set allow US, CA.',
    );
    const byKey = numberChecks(NO_COUNTRY['+882'], ['US'], WIDER).checks[1];
    assert.equal(
      byKey?.detail,
      'This API key may not call numbers of the non-geographic code +882; its allowlist is US.',
    );
  });

  it('gives a number of no country no country', () => {
    assert.equal(numberChecks(NO_COUNTRY['+882'], ['+882'], WIDER).country, null);
    assert.equal(numberChecks(GB, ['GB'], WIDER).country, 'GB');
  });

  it('refuses premium-rate and shared-cost numbers by type too', () => {
    for (const to of [NO_COUNTRY['+979'], NO_COUNTRY['+808']]) {
      const [type] = numberChecks(to, ['+979', '+808'], {
        countries: ['+979', '+808'],
        maxDailyCapUsd: '1',
      }).checks;
      assert.equal(type?.code, 'outbound.number_not_allowed', to);
    }
  });
});

describe('outbound spend check: the lower of the key cap and its customer largest', () => {
  const now = new Date('2026-05-04T12:00:00.000Z');
  const limits = (maxDailyCapUsd: string) => ({ maxDailyCapUsd });
  // A call reserves 0.90 (10 minutes at 0.09) until it ends.
  for (const [keyCap, max, used, passed, bound, cap] of [
    ['2.00', '100.00', '1.10', true, null, '2.00'],
    ['2.00', '100.00', '1.11', false, 'key', '2.00'],
    ['100.00', '1.80', '0.90', true, null, '1.80'],
    ['100.00', '1.80', '0.91', false, 'customer', '1.80'],
    ['1.80', '1.80', '0.91', false, 'key', '1.80'],
    ['9999999999.99', '100.00', '99.11', false, 'customer', '100.00'],
    ['50.00', '0', '0', false, 'customer', '0.00'],
  ] as const) {
    it(`key cap ${keyCap}, customer largest ${max}, ${used} used: ${passed ? 'allowed' : `refused by the ${bound}`}`, () => {
      const { check, spend } = spendCheck(keyCap, limits(max), used, now);
      assert.equal(check.passed, passed);
      assert.equal(check.bound, bound);
      assert.equal(spend.daily_cap_usd, cap);
    });
  }

  it("names the operator's cap when it is the one that refused", () => {
    const { check } = spendCheck('100.00', limits('1.80'), '0.91', now);
    assert.match(
      check.detail ?? '',
      /^The daily spend cap of \$1\.80 that the operator allows each key of this customer \(this key's own is \$100\.00\) would be exceeded/,
    );
  });
});
