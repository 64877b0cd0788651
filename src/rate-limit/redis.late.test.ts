import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { testRedisLimiters } from '../testing/redis-limiters.ts';
import { startSlowProxy } from '../testing/slow-proxy.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';

const REDIS_URL = process.env.REDIS_URL;
const WHOAMI = '/api/v1/auth/whoami';
const limiters = testRedisLimiters('late');

/** The service's limiter on its own Redis connection (through `url`), in a test app with the production windows. */
async function serviceOn(url: string) {
  const { limiter, warnings, client } = await limiters.open(url);
  // The production defaults: 60 failed authentications a minute per address, 30 per key prefix.
  const t = await startTestApp({
    limiter,
    authFailuresPerMinutePerIp: 60,
    authFailuresPerMinutePerPrefix: 30,
  });
  return { t, limiter, warnings, client };
}

/** `n` wrong keys that share a real key's prefix, sent at once from 30 addresses; their problem codes. */
async function guesses(t: TestApp, key: string, n: number, net: number): Promise<Record<string, number>> {
  const guess = `${key.slice(0, 12)}${'x'.repeat(33)}`;
  const responses = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      t.request('GET', WHOAMI, { key: guess, localAddress: `127.0.${net}.${(i % 30) + 1}` }),
    ),
  );
  const codes: Record<string, number> = {};
  for (const r of responses) codes[r.body.code] = (codes[r.body.code] ?? 0) + 1;
  return codes;
}

async function statuses(t: TestApp, key: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await t.request('GET', WHOAMI, { key })).status);
  return out;
}

describe('Redis that answers late', { skip: REDIS_URL ? false : 'set REDIS_URL to run' }, () => {
  after(() => limiters.close(REDIS_URL));

  it('answers 300 ms late (within the deadline): the windows hold exactly, valid keys pass, nothing is logged', async () => {
    const proxy = await startSlowProxy(REDIS_URL ?? '');
    const { t, warnings } = await serviceOn(proxy.url);
    try {
      const victim = await newCustomer(t);
      proxy.delay(300);
      assert.deepEqual(await guesses(t, victim.key, 36, 10), { 'auth.invalid': 30, 'auth.throttled': 6 });
      const own = await t.request('GET', WHOAMI, { key: victim.key, localAddress: '127.0.10.31' });
      assert.equal(own.status, 200, 'a valid key is never blocked by its prefix window');
      assert.deepEqual(warnings, []);
    } finally {
      await t.close();
      await proxy.close();
    }
  });

  for (const when of ['sent', 'queued'] as const) {
    it(`our own event loop held 700 ms with a command ${when === 'sent' ? 'in flight' : 'not yet written'}: Redis still judges, exactly 30 per prefix`, async () => {
      const { t, limiter, warnings, client } = await serviceOn(REDIS_URL ?? '');
      try {
        const victim = await newCustomer(t);
        assert.deepEqual(await guesses(t, victim.key, 20, 11), { 'auth.invalid': 20 });
        limiter.stallAtNextHit(700, when);
        assert.deepEqual(await guesses(t, victim.key, 40, 12), { 'auth.invalid': 10, 'auth.throttled': 30 });

        limiter.stallAtNextHit(700, when);
        const valid = await Promise.all(
          Array.from({ length: 10 }, () => t.request('GET', WHOAMI, { key: victim.key })),
        );
        assert.deepEqual(
          valid.map((r) => r.status),
          Array(10).fill(200),
        );
        assert.equal(await client.zcard(`${limiters.prefix}key:${victim.keyId}`), 10, 'counted in Redis');
        assert.deepEqual(warnings, [], 'a stall of our own is not a Redis outage');
      } finally {
        await t.close();
      }
    });
  }

  it('stops answering: each window counts on top of what Redis last held, never from empty; logged as slow', async () => {
    const proxy = await startSlowProxy(REDIS_URL ?? '');
    const { t, warnings } = await serviceOn(proxy.url);
    try {
      const customer = await newCustomer(t);
      assert.deepEqual(await statuses(t, customer.key, 30), Array(30).fill(200));
      const victim = await newCustomer(t);
      assert.deepEqual(await guesses(t, victim.key, 20, 13), { 'auth.invalid': 20 });

      proxy.hold();
      const during = await statuses(t, customer.key, 31);
      assert.deepEqual(during, [...Array(30).fill(200), 429], '60 a minute in all, not 60 more');
      assert.deepEqual(await guesses(t, victim.key, 12, 14), { 'auth.invalid': 10, 'auth.throttled': 2 });
      assert.equal(warnings.length, 1);
      assert.match(warnings[0] ?? '', /"event":"redis_slow".*Redis slow: nothing answered for 500 ms/);
    } finally {
      proxy.delay(0);
      await t.close();
      await proxy.close();
    }
  });
});
