import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { dashboardClient, signInBurst, TEST_PASSWORD } from '../testing/dashboard.fixtures.ts';
import { type FrozenRedis, startFrozenRedis } from '../testing/frozen-redis.ts';
import { testRedisLimiters } from '../testing/redis-limiters.ts';
import { startSlowProxy } from '../testing/slow-proxy.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { SESSION_COOKIE } from './context.ts';
import { DEFAULT_SESSION_SETTINGS } from './sessions.service.ts';

const REDIS_URL = process.env.REDIS_URL;
const limiters = testRedisLimiters('signin');
after(() => limiters.close(REDIS_URL));

/** The service's limiter on its own Redis connection, in a test app with the production sign-in windows. */
async function serviceOn(url: string, options?: { connects: boolean; readyCheck: boolean }) {
  const { limiter } = await limiters.open(url, options);
  // The production defaults: 10 failed sign-ins a minute per address, 5 per email.
  return { t: await startTestApp({ limiter }), limiter };
}

async function dashboardUser(t: TestApp, tag: string): Promise<{ email: string; customerKey: string }> {
  const c = await newCustomer(t);
  const email = `${tag}-${c.customerId.slice(0, 8)}@example.com`;
  await t.services.dashboard.users.createUser({ customerId: c.customerId, email, password: TEST_PASSWORD });
  return { email, customerKey: c.key };
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

describe('dashboard sign-in while Redis cannot answer: fails closed', () => {
  let frozen: FrozenRedis;
  before(async () => {
    frozen = await startFrozenRedis();
  });
  after(() => frozen.close());

  const cases: [string, () => string, boolean][] = [
    ['refuses connections', () => 'redis://127.0.0.1:1', false],
    ['stops answering after the service connected', () => frozen.url, true],
  ];
  for (const [name, redisUrl, connects] of cases) {
    it(`Redis ${name}: sign-in is refused without a password check; sessions and the API keep working`, async () => {
      const { t } = await serviceOn(redisUrl(), { connects, readyCheck: false });
      try {
        const { email, customerKey } = await dashboardUser(t, 'closed');
        const { responses, statuses, checked } = await signInBurst(t, [email, email], TEST_PASSWORD);
        assert.deepEqual(statuses, [429, 429]);
        assert.equal(checked, 0, 'no password checked while the attempts cannot be counted');
        assert.match(responses[0]?.text ?? '', /Sign-in is unavailable for a few seconds/);
        assert.equal(responses[0]?.headers['retry-after'], '5');

        // A session made before Redis went away: only new sign-ins wait.
        const user = await t.services.dashboard.users.verifyCredentials(email, TEST_PASSWORD);
        assert.ok(user);
        const session = await t.services.dashboard.sessions.create(user, DEFAULT_SESSION_SETTINGS);
        const client = dashboardClient(t);
        client.cookies.set(SESSION_COOKIE, session.token);
        assert.equal((await client.get('/dashboard/keys')).status, 200);
        await client.close();
        assert.equal((await t.request('GET', '/api/v1/auth/whoami', { key: customerKey })).status, 200);
      } finally {
        await t.close();
      }
    });
  }
});

describe('dashboard sign-in with a Redis that answers late', {
  skip: REDIS_URL ? false : 'set REDIS_URL to run',
}, () => {
  it('our own event loop held 700 ms while sign-ins are in flight: still 5 password checks per email, 10 per address', async () => {
    const { t, limiter } = await serviceOn(REDIS_URL ?? '');
    try {
      const { email } = await dashboardUser(t, 'stall');
      for (let i = 0; i < 3; i++) assert.equal((await signInBurst(t, [email], 'wrong password!')).checked, 1);
      const oneEmail = await signInBurst(t, Array(50).fill(email), 'wrong password!', () =>
        limiter.stallAtNextHit(700, 'sent'),
      );
      assert.equal(oneEmail.checked, 2, 'the 3 counted before the stall, and 2 more');
      assert.deepEqual([count(oneEmail.statuses, 401), count(oneEmail.statuses, 429)], [2, 48]);

      t.clock.advance(61_000);
      const tag = randomBytes(4).toString('hex');
      const spray = Array.from({ length: 50 }, (_, i) => `spray-${i}-${tag}@example.com`);
      const oneAddress = await signInBurst(t, spray, 'guess guess guess', () =>
        limiter.stallAtNextHit(700, 'sent'),
      );
      assert.equal(oneAddress.checked, 10);

      t.clock.advance(61_000);
      const own = await signInBurst(t, [email], TEST_PASSWORD, () => limiter.stallAtNextHit(700, 'sent'));
      assert.deepEqual(own.statuses, [303], 'the right password still signs in');
    } finally {
      await t.close();
    }
  });

  it('answers 300 ms late: the right password signs in, wrong ones get exactly 5 checks', async () => {
    const proxy = await startSlowProxy(REDIS_URL ?? '');
    const { t } = await serviceOn(proxy.url);
    try {
      const { email } = await dashboardUser(t, 'slow');
      proxy.delay(300);
      assert.deepEqual((await signInBurst(t, [email], TEST_PASSWORD)).statuses, [303]);
      const wrong = await signInBurst(t, Array(20).fill(email), 'wrong password!');
      assert.equal(wrong.checked, 5);
      assert.deepEqual([count(wrong.statuses, 401), count(wrong.statuses, 429)], [5, 15]);
    } finally {
      proxy.delay(0);
      await t.close();
      await proxy.close();
    }
  });

  it('stops answering after counting: sign-in fails closed, the API counts on', async () => {
    const proxy = await startSlowProxy(REDIS_URL ?? '');
    const { t } = await serviceOn(proxy.url);
    try {
      const { email, customerKey } = await dashboardUser(t, 'frozen');
      assert.equal((await signInBurst(t, [email], 'wrong password!')).checked, 1);
      proxy.hold();
      const { statuses, checked } = await signInBurst(t, Array(10).fill(email), TEST_PASSWORD);
      assert.deepEqual([statuses, checked], [Array(10).fill(429), 0]);
      assert.equal((await t.request('GET', '/api/v1/auth/whoami', { key: customerKey })).status, 200);
    } finally {
      proxy.delay(0);
      await t.close();
      await proxy.close();
    }
  });
});
