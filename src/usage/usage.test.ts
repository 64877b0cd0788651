import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { pino } from 'pino';
import { utcDay } from '../clock.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { registerUsageCounting } from './usage.hooks.ts';
import { createUsageService, type KeyDayCount } from './usage.service.ts';

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

const countsOf = (counts: KeyDayCount[], keyId: string) =>
  counts.filter((r) => r.keyId === keyId).sort((x, y) => x.day.localeCompare(y.day));

describe('usage counting', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  it('counts in memory (no write per request) and adds each flush to the stored day rows', async () => {
    const c = await newCustomer(t);
    const usage = t.services.usage;
    t.clock.set(new Date(Math.ceil(t.clock.now().getTime() / DAY) * DAY - 1000)); // 1 s before UTC midnight
    const day1 = utcDay(t.clock.now());
    usage.record(c.keyId, c.customerId, 200);
    usage.record(c.keyId, c.customerId, 403);
    t.clock.advance(2000);
    const day2 = utcDay(t.clock.now());
    usage.record(c.keyId, c.customerId, 200);
    assert.deepEqual(await storedUsage(t, c.keyId), [], 'nothing written yet');
    const pending = await usage.requestsSince(c.customerId, day1);
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
    assert.deepEqual(
      countsOf(await usage.requestsSince(c.customerId, day1), c.keyId).map((r) => r.requests),
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
    let counts = countsOf(await t.services.usage.requestsSince(c.customerId, utcDay(t.clock.now())), c.keyId);
    for (let i = 0; i < 100 && (counts[0]?.requests ?? 0) < 4; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      counts = countsOf(await t.services.usage.requestsSince(c.customerId, utcDay(t.clock.now())), c.keyId);
    }
    assert.equal(counts.length, 1);
    assert.equal(counts[0]?.requests, 4);
    assert.equal(counts[0]?.errors, 2);
  });
  it('writes a flush of more rows than PostgreSQL would take parameters for at five a row', async () => {
    const c = await newCustomer(t);
    const usage = t.services.usage;
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

  it('counts on an app without the dashboard: metering is registered with the API, not the UI', async () => {
    const c = await newCustomer(t);
    const usage = createUsageService({ db: t.db, clock: t.clock, logger: pino({ level: 'silent' }) });
    const app = Fastify();
    app.decorateRequest('principal', null);
    registerUsageCounting(app, usage);
    app.get('/metered', async (request, reply) => {
      const principal = await t.services.authenticator.authenticate([`Bearer ${c.key}`]);
      if ('keyId' in principal) request.principal = principal;
      return reply.code(404).send({});
    });
    assert.equal((await app.inject({ method: 'GET', url: '/metered' })).statusCode, 404);
    await app.close();
    assert.deepEqual(
      (await storedUsage(t, c.keyId)).map(({ requests, errors }) => ({ requests, errors })),
      [{ requests: 1, errors: 1 }],
      'counted, and written when the app closed',
    );
  });
});
