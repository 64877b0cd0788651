import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { insertCalls } from '../calls/calls.repository.ts';
import { utcDay } from '../clock.ts';
import { generateCalls } from '../demo/call-generator.ts';
import { insertReservation } from '../outbound/spend.repository.ts';
import { rng } from '../provider/random.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { addMoney, subtractMoney } from './usage-report.ts';

const DAY = 86_400_000;

describe('usage report', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  it('reports spend per key per day from the outbound ledger, and outbound calls by country whose key spend is that ledger’s, to the cent', async () => {
    const c = await newCustomer(t);
    const other = await newCustomer(t);
    const assistant = await t.services.assistants.createAssistant({
      customerId: c.customerId,
      name: 'Out',
      voiceId: 'aria',
      phoneNumbers: ['+14155550100'],
    });
    const rows = generateCalls({
      customerId: c.customerId,
      assistants: [assistant],
      count: 30,
      end: t.clock.now(),
      days: 2,
      random: rng(3),
    }).map((r, i) => ({
      ...r,
      direction: 'outbound' as const,
      to_number: i < 3 ? '+442079460123' : i < 5 ? '+16045550123' : '+14155550123',
      cost_usd: '0.1000',
      api_initiated: i % 2 === 0,
    }));
    // Placed with the key before the period: in neither the spend nor the countries.
    const old = {
      ...rows[0],
      id: randomUUID(),
      started_at: new Date(t.clock.now().getTime() - 10 * DAY),
    } as (typeof rows)[0];
    await insertCalls(t.db, [...rows, old]);
    const today = utcDay(t.clock.now());
    const yesterday = utcDay(new Date(t.clock.now().getTime() - DAY));
    await t.db.transaction().execute(async (tx) => {
      for (const [i, [day, amount]] of [
        [today, '1.2345'],
        [today, '2.0000'],
        [yesterday, '5.5000'],
        [utcDay(old.started_at), '9.0000'],
      ].entries()) {
        await insertReservation(tx, {
          call_id: (i < 3 ? rows[i] : old)?.id ?? '',
          api_key_id: c.keyId,
          customer_id: c.customerId,
          day: day ?? today,
          amount_usd: amount ?? '0',
          now: t.clock.now(),
        });
      }
    });
    const report = await t.services.dashboard.usage.report(c.customerId, 7);
    const spend = report.spend.filter((s) => s.keyId === c.keyId).sort((a, b) => a.day.localeCompare(b.day));
    assert.deepEqual(
      spend.map((s) => [s.day, Number(s.amountUsd)]),
      [
        [yesterday, 5.5],
        [today, 3.2345],
      ],
    );
    assert.deepEqual(
      report.countries.map((x) => [x.country, x.calls, x.keyCalls, x.keySpendUsd, x.otherCostUsd]),
      [
        ['US', 25, 0, '0', '2.5000'],
        ['GB', 3, 3, '8.7345', '0'],
        ['CA', 2, 0, '0', '0.2000'],
      ],
      'calls placed with a key cost their ledger amount; the others their recorded cost',
    );
    assert.equal(
      report.countries.map((x) => x.keySpendUsd).reduce(addMoney, '0'),
      report.spend.map((x) => x.amountUsd).reduce(addMoney, '0'),
      'the same total as the spend per key',
    );
    assert.equal(report.callSpendUsd, '8.7345', 'all of it calls: no text messages');
    const theirs = await t.services.dashboard.usage.report(other.customerId, 7);
    assert.deepEqual([theirs.spend, theirs.countries], [[], []], 'nothing of another customer');
  });
  it('adds money as exact decimals', () => {
    assert.equal(addMoney('0.1', '0.2'), '0.3000');
    assert.equal(addMoney('12.3456', '0'), '12.3456');
    assert.equal(addMoney('99999999.9999', '0.0001'), '100000000.0000');
    assert.equal(subtractMoney('3.2345', '1.2345'), '2.0000');
    assert.equal(subtractMoney('1', '1.0001'), '0.0000', 'never below zero');
  });
});
