import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../errors/app-error.ts';
import { ANSWERS, type Caller, dryRunCall, newCaller, placeCall } from '../testing/outbound.fixtures.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';

const GB = '+442071838750';
const CA = '+16045550123';
const KP = '+85021234567';
/** Numbers of no country, each valid (the API accepts it), so only an allowlist can refuse it. */
const NO_COUNTRY = [
  '+80012345678',
  '+870301234567',
  '+878101234567890',
  '+881612345678',
  '+8823451234567',
  '+883510012345',
  '+88812345678901',
];
const IN_882 = '+8823451234567';

type CheckBody = { name: string; passed: boolean; code: string | null; bound: string | null; detail: string };
const dryRun = async (t: TestApp, c: Caller, to: string) => {
  const res = await dryRunCall(t, c, { to_number: to });
  assert.equal(res.status, 200, res.text);
  const checks = res.body.checks as CheckBody[];
  return { ...res.body, byName: (name: string) => checks.find((x) => x.name === name) };
};

/** The operator's bounds per customer (issue 34, item 1): keys live inside them, calls are held to both. */
describe("outbound calls within the customer's limits", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it("refuses the issue's key: KP, CU, SO, IR, SY and a cap of 9999999999.99, naming each field and bound", async () => {
    const c = await newCaller(t);
    const keys = async () => (await t.services.keys.listKeys(c.customerId)).length;
    const before = await keys();
    const refused = await t.services.keys
      .createKey({
        customerId: c.customerId,
        name: 'toll fraud',
        scopes: ['outbound_calls'],
        allowedCountries: ['KP', 'CU', 'SO', 'IR', 'SY'],
        dailySpendCapUsd: '9999999999.99',
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    assert.ok(refused instanceof AppError);
    assert.equal(refused.code, 'input.invalid');
    assert.deepEqual(refused.issues, [
      {
        path: ['allowed_countries'],
        message:
          'KP, CU, SO, IR, SY are outside the countries this customer may call (US, CA), set by the operator.',
      },
      {
        path: ['daily_spend_cap_usd'],
        message: 'Must be at most 100.00, the largest daily cap the operator allows this customer.',
      },
    ]);
    assert.equal(await keys(), before, 'nothing stored');
    // And the call the issue made, with the key that could be made: refused by the customer's limits.
    const kp = await dryRun(t, c, KP);
    assert.equal(kp.allowed, false);
    assert.equal(kp.byName('country').bound, 'customer');
  });

  it('refuses every number of no country under the default limits, whatever the key allows', async () => {
    const c = await newCaller(t);
    for (const to of NO_COUNTRY) {
      const run = await dryRun(t, c, to);
      assert.equal(run.allowed, false, to);
      assert.equal(run.country, null, to);
      assert.equal(run.byName('number_type').passed, true, `${to}: the allowlist refuses it, not its type`);
      assert.equal(run.byName('country').code, 'outbound.country_not_allowed', to);
      const placed = await placeCall(t, c, { to_number: to });
      assert.equal(placed.status, 403, to);
      assert.equal(placed.body.code, 'outbound.country_not_allowed', to);
    }
  });

  it('calls a code of no country only where both the limits and the key name it', async () => {
    const named = await newCaller(t, { countries: ['US', '+882'], limits: { countries: ['US', '+882'] } });
    const run = await dryRun(t, named, IN_882);
    assert.equal(run.allowed, true, JSON.stringify(run.checks));
    assert.equal((await placeCall(t, named, { to_number: IN_882 })).status, 201);
    assert.equal((await dryRun(t, named, '+883510012345')).byName('country').bound, 'customer');

    const notByKey = await newCaller(t, { countries: ['US'], limits: { countries: ['US', '+882'] } });
    const byKey = await dryRun(t, notByKey, IN_882);
    assert.equal(byKey.byName('country').bound, 'key');
    assert.match(byKey.byName('country').detail, /non-geographic code \+882; its allowlist is US\./);
  });

  it('names the bound that refused in the dry run: the key, or the limits the operator set', async () => {
    const c = await newCaller(t, {
      countries: ['US', 'GB'],
      cap: '50.00',
      limits: { countries: ['US', 'CA', 'GB'] },
    });
    const gb = await dryRun(t, c, GB);
    assert.equal(gb.allowed, true);
    assert.equal(gb.spend.daily_cap_usd, '50.00');
    const ca = await dryRun(t, c, CA);
    assert.deepEqual(
      { passed: ca.byName('country').passed, bound: ca.byName('country').bound },
      { passed: false, bound: 'key' },
    );
    assert.equal(ca.byName('spend_cap').bound, null);

    await t.services.customers.setOutboundLimits(c.customerId, { countries: ['US'], maxDailyCapUsd: '0.50' });
    const lowered = await dryRun(t, c, GB);
    assert.equal(lowered.allowed, false);
    assert.equal(lowered.byName('country').bound, 'customer');
    assert.match(lowered.byName('country').detail, /the outbound limits the operator set allow US\./);
    assert.equal(lowered.byName('spend_cap').bound, 'customer');
    assert.equal(lowered.byName('spend_cap').code, 'outbound.spend_cap_exceeded');
    assert.equal(lowered.spend.daily_cap_usd, '0.50', 'the cap the key is held to');
  });

  it("narrows an existing key at once when the operator lowers its customer's limits; inside them it still calls", async () => {
    const c = await newCaller(t, {
      countries: ['US', 'CA', 'GB'],
      cap: '200.00',
      limits: { countries: ['US', 'CA', 'GB'], maxDailyCapUsd: '500.00' },
    });
    // Placed (and the key held in this instance's memory) before the change.
    assert.equal((await placeCall(t, c, { to_number: GB })).status, 201);
    assert.equal((await placeCall(t, c, { to_number: CA })).status, 201);

    await t.services.customers.setOutboundLimits(c.customerId, {
      countries: ['US', 'CA'],
      maxDailyCapUsd: '2.70',
    });
    const gb = await placeCall(t, c, { to_number: GB });
    assert.equal(gb.status, 403, gb.text);
    assert.equal(gb.body.code, 'outbound.country_not_allowed');
    assert.match(gb.body.detail, /No API key of this customer may call numbers in GB/);
    // 0.90 per call is reserved: two are in flight, a third fits under 2.70, a fourth does not.
    assert.equal(
      (await placeCall(t, c, { to_number: ANSWERS })).status,
      201,
      'still allowed inside the limits',
    );
    const over = await placeCall(t, c, { to_number: CA });
    assert.equal(over.status, 402, over.text);
    assert.equal(over.body.code, 'outbound.spend_cap_exceeded');
    assert.match(over.body.detail, /^The daily spend cap of \$2\.70 that the operator allows each key/);

    const key = await t.services.keys.getKey(c.customerId, c.keyId);
    assert.deepEqual(
      {
        stored: [key?.allowed_countries, key?.daily_spend_cap_usd],
        effective: [key?.effective_allowed_countries, key?.effective_daily_spend_cap_usd],
        narrowed: key?.narrowed_by_customer_limits,
      },
      { stored: [['US', 'CA', 'GB'], '200.00'], effective: [['US', 'CA'], '2.70'], narrowed: true },
    );

    await t.services.customers.setOutboundLimits(c.customerId, { countries: null, maxDailyCapUsd: null });
    const back = await t.services.customers.getCustomer(c.customerId);
    assert.deepEqual(
      [back.outbound_countries, back.outbound_max_daily_cap_usd, back.outbound_countries_is_default],
      [['US', 'CA'], '100.00', true],
      'back to the defaults',
    );
    assert.equal((await placeCall(t, c, { to_number: CA })).status, 201, 'a cap of 100.00 again');
  });

  it('gives a key made without an allowlist or cap the defaults within its customer', async () => {
    const c = await newCaller(t, { limits: { countries: ['GB', 'IE'], maxDailyCapUsd: '20' } });
    const key = await t.services.keys.getKey(c.customerId, c.keyId);
    assert.deepEqual([key?.allowed_countries, key?.daily_spend_cap_usd], [['GB', 'IE'], '20.00']);
  });

  it('refuses limits that name no region or no amount, and changes nothing', async () => {
    const c = await newCaller(t);
    const refused = await t.services.customers
      .setOutboundLimits(c.customerId, { countries: ['US', 'XX', '+1'], maxDailyCapUsd: '12.345' })
      .then(
        () => null,
        (e: unknown) => e,
      );
    assert.ok(refused instanceof AppError);
    assert.deepEqual(
      refused.issues?.map((i) => i.path.join('.')),
      ['outbound_countries', 'outbound_countries', 'outbound_max_daily_cap_usd'],
    );
    const same = await t.services.customers.getCustomer(c.customerId);
    assert.deepEqual(
      [same.outbound_countries_is_default, same.outbound_max_daily_cap_is_default],
      [true, true],
    );
  });
});
