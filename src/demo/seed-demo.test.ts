import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMoney } from '../dashboard/usage-report.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';
import { seedDemo } from './seed-demo.ts';

describe('demo data', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  it('places its outbound calls with the demo key, in the ledger: spend per key and cost by country agree', async () => {
    const demo = await seedDemo(t.db, t.services, t.clock, 120);
    assert.equal(demo.messages, 4, 'three texts sent with the demo key and a reply');
    const outbound = await t.db
      .selectFrom('calls as c')
      .leftJoin('spend_reservations as r', 'r.call_id', 'c.id')
      .select(['c.api_initiated', 'c.api_key_id', 'c.cost_usd', 'r.amount_usd', 'r.state'])
      .where('c.customer_id', '=', demo.customerId)
      .where('c.direction', '=', 'outbound')
      .execute();
    assert.ok(outbound.length > 10, `${outbound.length} outbound calls`);
    for (const call of outbound) {
      assert.equal(call.api_initiated, true);
      assert.ok(call.api_key_id);
      assert.equal(call.state, 'settled');
      assert.equal(Number(call.amount_usd), Number(call.cost_usd));
    }
    for (const days of [7, 14, 30]) {
      const report = await t.services.dashboard.usage.report(demo.customerId, days);
      const keySpend = report.spend.map((s) => s.amountUsd).reduce(addMoney, '0');
      assert.ok(Number(keySpend) > 0, `${days} days: ${keySpend}`);
      assert.equal(
        report.countries.map((c) => c.keySpendUsd).reduce(addMoney, '0'),
        report.callSpendUsd,
        `${days} days: the calls' part of the key spend`,
      );
      assert.equal(addMoney(report.callSpendUsd, '0.0237'), keySpend, `${days} days: and 3 texts at $0.0079`);
      assert.equal(
        Number(report.countries.map((c) => c.otherCostUsd).reduce(addMoney, '0')),
        0,
        `${days} days`,
      );
    }
  });
});
