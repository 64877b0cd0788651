import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { insertCalls } from '../calls/calls.repository.ts';
import { utcDay } from '../clock.ts';
import { generateCalls } from '../demo/call-generator.ts';
import { insertReservation } from '../outbound/spend.repository.ts';
import { rng } from '../provider/random.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { addMoney, type UsageReport } from './usage.service.ts';

const DAY = 86_400_000;

async function storedUsage(t: TestApp, keyId: string) {
  const rows = await t.db
    .selectFrom('key_usage_daily')
    .select(['requests', 'errors'])
    .select((eb) => eb.cast<string>('day', 'text').as('day_text'))
    .where('key_id', '=', keyId)
    .orderBy('day')
    .execute();
  return rows.map((r) => ({ day: r.day_text, requests: Number(r.requests), errors: Number(r.errors) }));
}

const countsOf = (report: UsageReport, keyId: string) =>
  report.requests.filter((r) => r.keyId === keyId).sort((x, y) => x.day.localeCompare(y.day));

describe('usage counting and report', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  it('counts in memory (no write per request) and adds each flush to the stored day rows', async () => {
    const c = await newCustomer(t);
    const usage = t.services.dashboard.usage;
    t.clock.set(new Date(Math.ceil(t.clock.now().getTime() / DAY) * DAY - 1000)); // 1 s before UTC midnight
    const day1 = utcDay(t.clock.now());
    usage.record(c.keyId, c.customerId, 200);
    usage.record(c.keyId, c.customerId, 403);
    t.clock.advance(2000);
    const day2 = utcDay(t.clock.now());
    usage.record(c.keyId, c.customerId, 200);
    assert.deepEqual(await storedUsage(t, c.keyId), [], 'nothing written yet');
    const pending = await usage.report(c.customerId, 7);
    assert.deepEqual(
      countsOf(pending, c.keyId).map(({ day, requests, errors }) => ({ day, requests, errors })),
      [
        { day: day1, requests: 2, errors: 1 },
        { day: day2, requests: 1, errors: 0 },
      ],
      'the report includes counts not flushed yet',
    );
    await usage.flush();
    assert.deepEqual(await storedUsage(t, c.keyId), [
      { day: day1, requests: 2, errors: 1 },
      { day: day2, requests: 1, errors: 0 },
    ]);
    usage.record(c.keyId, c.customerId, 500);
    await usage.flush();
    await usage.flush();
    assert.deepEqual((await storedUsage(t, c.keyId)).at(-1), { day: day2, requests: 2, errors: 1 });
    const report = await usage.report(c.customerId, 7);
    assert.equal(report.days[0], day2);
    assert.equal(report.days.length, 7);
    assert.deepEqual(
      countsOf(report, c.keyId).map((r) => r.requests),
      [2, 2],
      'flushed counts are not counted twice',
    );
  });

  it('the app counts every request a key authenticated, whatever the answer, and nothing else', async () => {
    const c = await newCustomer(t, { scopes: ['read_calls'] });
    assert.equal((await t.request('GET', '/api/v1/auth/whoami', { key: c.key })).status, 200);
    assert.equal((await t.request('GET', '/api/v1/calls', { key: c.key })).status, 200);
    assert.equal((await t.request('GET', '/api/v1/assistants', { key: c.key })).status, 403);
    assert.equal((await t.request('GET', '/api/v1/calls?limit=0', { key: c.key })).status, 422);
    assert.equal((await t.request('GET', '/api/v1/auth/whoami')).status, 401);
    assert.equal(
      // Another last character (a key that already ends in x would be unchanged: one run in 62).
      (
        await t.request('GET', '/api/v1/auth/whoami', {
          key: `${c.key.slice(0, -1)}${c.key.endsWith('x') ? 'y' : 'x'}`,
        })
      ).status,
      401,
    );
    await t.request('GET', '/healthz');
    // onResponse runs when the server has finished writing, which may be just after the client has read.
    let counts = countsOf(await t.services.dashboard.usage.report(c.customerId, 1), c.keyId);
    for (let i = 0; i < 100 && (counts[0]?.requests ?? 0) < 4; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      counts = countsOf(await t.services.dashboard.usage.report(c.customerId, 1), c.keyId);
    }
    assert.equal(counts.length, 1);
    assert.equal(counts[0]?.requests, 4);
    assert.equal(counts[0]?.errors, 2);
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
    const theirs = await t.services.dashboard.usage.report(other.customerId, 7);
    assert.deepEqual([theirs.spend, theirs.countries], [[], []], 'nothing of another customer');
  });

  it('writes a flush of more rows than PostgreSQL would take parameters for at five a row', async () => {
    const c = await newCustomer(t);
    const usage = t.services.dashboard.usage;
    const rows = 14_000; // 70,000 parameters at five a row; PostgreSQL's limit is 65,535
    for (let i = 0; i < rows; i++) {
      usage.record(c.keyId, c.customerId, i % 10 === 0 ? 500 : 200);
      t.clock.advance(DAY);
    }
    await usage.flush();
    const stored = await storedUsage(t, c.keyId);
    assert.equal(stored.length, rows);
    assert.deepEqual(
      stored.reduce((sum, r) => ({ requests: sum.requests + r.requests, errors: sum.errors + r.errors }), {
        requests: 0,
        errors: 0,
      }),
      { requests: rows, errors: rows / 10 },
    );
  });

  it('writes what it counted when the app closes', async () => {
    const t2 = await startTestApp();
    const c = await newCustomer(t2);
    assert.equal((await t2.request('GET', '/api/v1/auth/whoami', { key: c.key })).status, 200);
    await t2.close();
    assert.deepEqual(
      (await storedUsage(t2, c.keyId)).map((r) => r.requests),
      [1],
    );
  });

  it('adds money as exact decimals', () => {
    assert.equal(addMoney('0.1', '0.2'), '0.3000');
    assert.equal(addMoney('12.3456', '0'), '12.3456');
    assert.equal(addMoney('99999999.9999', '0.0001'), '100000000.0000');
  });
});
