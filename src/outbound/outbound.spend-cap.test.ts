import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ANSWERS,
  advance,
  BUSY,
  dryRunCall,
  newCaller,
  placeCall,
  providerGate,
} from '../testing/outbound.fixtures.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';

describe('daily spend cap and allowlist', () => {
  let t: TestApp;
  before(async () => {
    // 23:00 UTC, so a day boundary is an hour away.
    t = await startTestApp();
    t.clock.set('2026-05-04T23:00:00.000Z');
  });
  after(() => t.close());

  it('reserves the maximum cost of a call while it is in flight: a 1.80 cap admits two calls, not three', async () => {
    const c = await newCaller(t, { cap: '1.80' });
    assert.equal((await placeCall(t, c)).status, 201);
    assert.equal((await placeCall(t, c)).status, 201);
    const third = await placeCall(t, c);
    assert.equal(third.status, 402, third.text);
    assert.equal(third.body.code, 'outbound.spend_cap_exceeded');
    assert.match(third.body.detail, /\$1\.80.*\$1\.8000 is spent or reserved/);
  });

  it('never overshoots under concurrency: of six simultaneous requests on a 1.80 cap, exactly two are placed', async () => {
    const c = await newCaller(t, { cap: '1.80' });
    const placements = await t.services.simulator.placementCount();
    const gate = providerGate(t);
    const requests = Array.from({ length: 6 }, (_, i) => placeCall(t, c, { external_id: `r${i}` }));
    // The two that reserved are held at the provider while the others are checked.
    await gate.held(2);
    gate.open();
    const statuses = (await Promise.all(requests)).map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, 201, 402, 402, 402, 402]);
    assert.equal(await t.services.simulator.placementCount(), placements + 2);
  });

  it('settles to the actual cost, which frees the rest of the estimate for more calls', async () => {
    const c = await newCaller(t, { cap: '1.80' });
    await placeCall(t, c, { to_number: BUSY });
    await placeCall(t, c, { to_number: BUSY });
    assert.equal((await placeCall(t, c)).status, 402);
    await advance(t, 10);
    const reservations = await t.db
      .selectFrom('spend_reservations')
      .select(['amount_usd', 'state'])
      .where('api_key_id', '=', c.keyId)
      .execute();
    assert.deepEqual(reservations, [
      { amount_usd: '0.0000', state: 'settled' },
      { amount_usd: '0.0000', state: 'settled' },
    ]);
    assert.equal((await placeCall(t, c)).status, 201);
  });

  it('counts per key and per UTC day', async () => {
    const c = await newCaller(t, { cap: '0.90' });
    assert.equal((await placeCall(t, c)).status, 201);
    assert.equal((await placeCall(t, c)).status, 402);
    const second = await t.services.keys.createKey({
      customerId: c.customerId,
      name: 'second key',
      scopes: ['outbound_calls'],
      dailySpendCapUsd: '0.90',
    });
    assert.equal(
      (await placeCall(t, { key: second.secret, assistant: c.assistant })).status,
      201,
      'caps are per key',
    );
    t.clock.set('2026-05-05T00:00:01.000Z');
    assert.equal((await placeCall(t, c)).status, 201, 'a new UTC day starts afresh');
  });

  it('answers a dry run with every check, reserving nothing and calling nobody', async () => {
    const c = await newCaller(t, { cap: '2.00' });
    await placeCall(t, c);
    const placements = await t.services.simulator.placementCount();
    const ok = await dryRunCall(t, c);
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.body, {
      allowed: true,
      checks: ['assistant', 'number_type', 'country', 'spend_cap'].map((name) => ({
        name,
        passed: true,
        code: null,
        detail: null,
        bound: null,
      })),
      to_number: ANSWERS,
      country: 'US',
      from_number: '+14155550102',
      spend: {
        daily_cap_usd: '2.00',
        used_today_usd: '0.9000',
        call_estimate_usd: '0.9000',
        remaining_usd: '1.1000',
        resets_at: '2026-05-06T00:00:00.000Z',
      },
      livemode: true,
    });
    const again = await dryRunCall(t, c);
    assert.equal(again.body.spend.used_today_usd, '0.9000', 'a dry run reserves nothing');
    await placeCall(t, c);
    const no = await dryRunCall(t, c, { to_number: '+442071838750' });
    assert.equal(no.status, 200);
    assert.equal(no.body.allowed, false);
    assert.deepEqual(
      no.body.checks.filter((x: { passed: boolean }) => !x.passed).map((x: { code: string }) => x.code),
      ['outbound.country_not_allowed', 'outbound.spend_cap_exceeded'],
      'every failing check is reported, not only the first',
    );
    assert.equal(no.body.country, 'GB');
    assert.equal(
      await t.services.simulator.placementCount(),
      placements + 1,
      'only the real placement reached the provider',
    );
    const other = await newCaller(t);
    const theirs = await dryRunCall(t, { key: c.key, assistant: other.assistant });
    assert.equal(theirs.body.checks[0].code, 'resource.not_found');
    assert.equal(theirs.body.from_number, null);
  });

  it('lets a key call the countries of its own allowlist', async () => {
    const c = await newCaller(t, { countries: ['GB', 'FR'], limits: { countries: ['US', 'GB', 'FR'] } });
    assert.equal((await placeCall(t, c, { to_number: '+442071838750' })).status, 201);
    assert.equal((await placeCall(t, c, { to_number: '+33142685300' })).status, 201);
    const us = await placeCall(t, c, { to_number: ANSWERS });
    assert.equal(us.status, 403);
    assert.equal(us.body.code, 'outbound.country_not_allowed');
  });
});
