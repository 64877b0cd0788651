import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { createLogger } from '../logger.ts';
import type { RateLimiter } from '../rate-limit/interface.ts';
import { createMemoryLimiter } from '../rate-limit/memory.ts';
import { createRedisLimiter, REDIS_CLIENT_OPTIONS } from '../rate-limit/redis.ts';
import { dashboardClient, signedIn, signInBurst, TEST_PASSWORD } from '../testing/dashboard.fixtures.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { safeNext } from './auth.routes.ts';
import { hashToken } from './sessions.service.ts';

const HOUR = 3_600_000;

describe('dashboard sign-in and sessions', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  it('signs in: a __Host- cookie that is Secure, HttpOnly and SameSite=Strict; only a hash of it is stored', async () => {
    const c = await newCustomer(t);
    const email = `Mixed.Case-${c.customerId.slice(0, 6)}@Example.com`;
    await t.services.dashboard.users.createUser({ customerId: c.customerId, email, password: TEST_PASSWORD });
    const client = dashboardClient(t);
    const form = await client.get('/dashboard/login');
    assert.equal(form.status, 200);
    const res = await client.post('/dashboard/login', {
      _csrf: client.csrf(),
      email: email.toUpperCase(),
      password: TEST_PASSWORD,
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.location, '/dashboard/');
    const setCookie = [res.headers['set-cookie'] ?? []]
      .flat()
      .find((l) => l.startsWith('__Host-vca_session='));
    assert.ok(setCookie);
    assert.match(setCookie, /; Secure/i);
    assert.match(setCookie, /; HttpOnly/i);
    assert.match(setCookie, /; SameSite=Strict/i);
    assert.match(setCookie, /; Path=\//i);
    assert.doesNotMatch(setCookie, /Domain=/i);
    const token = client.cookies.get('__Host-vca_session') ?? '';
    const stored = await t.db
      .selectFrom('dashboard_sessions')
      .select(['token_hash', 'customer_id'])
      .execute();
    assert.ok(stored.some((r) => r.token_hash === hashToken(token) && r.customer_id === c.customerId));
    assert.equal(
      stored.some((r) => r.token_hash === token),
      false,
      'the raw token is never stored',
    );
    const user = await t.db
      .selectFrom('dashboard_users')
      .select(['email', 'password_hash', 'last_login_at'])
      .where('customer_id', '=', c.customerId)
      .executeTakeFirstOrThrow();
    assert.equal(user.email, email.toLowerCase());
    assert.match(user.password_hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.ok(user.last_login_at);
    const keys = await client.get('/dashboard/keys');
    assert.equal(keys.status, 200);
    assert.match(keys.text, new RegExp(email.toLowerCase().replace(/[.]/g, '\\.')));
    await client.close();
  });

  it('refuses a wrong password and an unknown email alike, and keeps the email typed', async () => {
    const c = await newCustomer(t);
    const email = `known-${c.customerId.slice(0, 6)}@example.com`;
    await t.services.dashboard.users.createUser({ customerId: c.customerId, email, password: TEST_PASSWORD });
    const client = dashboardClient(t);
    await client.get('/dashboard/login');
    const wrong = await client.post('/dashboard/login', {
      _csrf: client.csrf(),
      email,
      password: 'not the password',
    });
    const unknown = await client.post('/dashboard/login', {
      _csrf: client.csrf(),
      email: `nobody-${c.customerId.slice(0, 6)}@example.com`,
      password: 'not the password',
    });
    for (const res of [wrong, unknown]) {
      assert.equal(res.status, 401);
      assert.match(res.text, /The email or password is incorrect\./);
      assert.equal(client.cookies.has('__Host-vca_session'), false);
    }
    assert.match(wrong.text, new RegExp(`value="${email.replace(/[.]/g, '\\.')}"`));
    await client.close();
  });

  it('refuses a sign-in post without the sign-in form token (login CSRF)', async () => {
    const c = await newCustomer(t);
    const email = `csrf-${c.customerId.slice(0, 6)}@example.com`;
    await t.services.dashboard.users.createUser({ customerId: c.customerId, email, password: TEST_PASSWORD });
    const client = dashboardClient(t);
    const res = await client.post('/dashboard/login', { email, password: TEST_PASSWORD });
    assert.equal(res.status, 403);
    await client.get('/dashboard/login');
    const forged = await client.post('/dashboard/login', { _csrf: 'forged', email, password: TEST_PASSWORD });
    assert.equal(forged.status, 403);
    await client.close();
  });

  it('sends signed-out visitors to sign-in (remembering the page), and a form post changes nothing', async () => {
    const c = await newCustomer(t);
    const client = dashboardClient(t);
    const page = await client.get('/dashboard/calls?direction=inbound');
    assert.equal(page.status, 303);
    assert.equal(
      page.headers.location,
      `/dashboard/login?next=${encodeURIComponent('/dashboard/calls?direction=inbound')}`,
    );
    const post = await client.post(`/dashboard/keys/${c.keyId}/revoke`, {});
    assert.equal(post.status, 303);
    assert.match(String(post.headers.location), /^\/dashboard\/login/);
    assert.equal((await t.services.keys.getKey(c.customerId, c.keyId)).status, 'active');
    const root = await client.get('/');
    assert.equal(root.status, 302);
    assert.equal(root.headers.location, '/dashboard/');
    await client.close();
  });

  it('goes where it was asked after sign-in, but only within the dashboard', async () => {
    const c = await newCustomer(t);
    const email = `next-${c.customerId.slice(0, 6)}@example.com`;
    await t.services.dashboard.users.createUser({ customerId: c.customerId, email, password: TEST_PASSWORD });
    const client = dashboardClient(t);
    await client.get('/dashboard/login?next=%2Fdashboard%2Fusage%3Fdays%3D14');
    const res = await client.post('/dashboard/login', {
      _csrf: client.csrf(),
      email,
      password: TEST_PASSWORD,
      next: '/dashboard/usage?days=14',
    });
    assert.equal(res.headers.location, '/dashboard/usage?days=14');
    for (const evil of [
      'https://evil.example/',
      '//evil.example/',
      '/dashboard/\\evil',
      '/dashboardx',
      'javascript:alert(1)',
    ]) {
      assert.equal(safeNext(evil), '/dashboard/', evil);
    }
    await client.close();
  });

  it('ends a session after 12 hours idle', async () => {
    const c = await newCustomer(t);
    const { client } = await signedIn(t, c.customerId);
    t.clock.advance(12 * HOUR - 60_000);
    assert.equal((await client.get('/dashboard/keys')).status, 200, 'still alive just before the idle limit');
    t.clock.advance(12 * HOUR - 1);
    assert.equal((await client.get('/dashboard/keys')).status, 200, 'activity moved the idle limit');
    t.clock.advance(12 * HOUR);
    const res = await client.get('/dashboard/keys');
    assert.equal(res.status, 303);
    assert.match(String(res.headers.location), /^\/dashboard\/login/);
    await client.close();
  });

  it('ends a session 7 days after sign-in however active it is', async () => {
    const c = await newCustomer(t);
    const { client } = await signedIn(t, c.customerId);
    for (let i = 0; i < 15; i++) {
      t.clock.advance(11 * HOUR);
      assert.equal((await client.get('/dashboard/keys')).status, 200, `after ${(i + 1) * 11} h`);
    }
    t.clock.advance(3 * HOUR); // 168 h = 7 days since sign-in
    assert.equal((await client.get('/dashboard/keys')).status, 303);
    await client.close();
  });

  it('signs out: the session is deleted, so replaying the old cookie does not work', async () => {
    const c = await newCustomer(t);
    const { client } = await signedIn(t, c.customerId);
    const token = client.cookies.get('__Host-vca_session') ?? '';
    await client.get('/dashboard/keys');
    const out = await client.post('/dashboard/logout', { _csrf: client.csrf() });
    assert.equal(out.status, 303);
    assert.equal(out.headers.location, '/dashboard/login');
    assert.equal(client.cookies.has('__Host-vca_session'), false);
    client.cookies.set('__Host-vca_session', token);
    assert.equal((await client.get('/dashboard/keys')).status, 303);
    await client.close();
  });

  it('a new password signs the user out everywhere', async () => {
    const c = await newCustomer(t);
    const { client, email } = await signedIn(t, c.customerId);
    await t.services.dashboard.users.setPassword(email, 'a brand new passphrase');
    assert.equal((await client.get('/dashboard/keys')).status, 303);
    await client.close();
  });

  it('sets the security headers on pages, errors, the sign-in form and assets', async () => {
    const c = await newCustomer(t);
    const { client } = await signedIn(t, c.customerId);
    const anonymous = dashboardClient(t);
    const responses = [
      await client.get('/dashboard/keys'),
      await client.get('/dashboard/keys/not-a-key'),
      await client.get('/dashboard/no-such-page'),
      await anonymous.get('/dashboard/login'),
      await anonymous.get('/dashboard/static/dashboard.css'),
    ];
    for (const res of responses) {
      const csp = String(res.headers['content-security-policy']);
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'self'/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /unsafe-inline/);
      assert.equal(res.headers['x-frame-options'], 'DENY');
      assert.equal(res.headers['referrer-policy'], 'no-referrer');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
    }
    const [page, notAKey, noPage, login, css] = responses;
    assert.equal(page?.headers['cache-control'], 'no-store');
    assert.equal(login?.headers['cache-control'], 'no-store');
    assert.equal(notAKey?.status, 404);
    assert.equal(noPage?.status, 404);
    assert.match(String(noPage?.headers['content-type']), /^text\/html/);
    assert.match(String(css?.headers['content-type']), /^text\/css/);
    // No inline script or style anywhere: the CSP would block it.
    for (const res of [page, login]) {
      assert.doesNotMatch(res?.text ?? '', /<script>|<script [^s]|style="|<style/);
    }
    await client.close();
    await anonymous.close();
  });
});

describe('dashboard sign-in throttling', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({
      dashboard: { loginFailuresPerMinutePerIp: 8, loginFailuresPerMinutePerEmail: 3 },
    });
  });
  after(async () => {
    await t.close();
  });

  async function attempt(email: string, password: string) {
    const client = dashboardClient(t);
    await client.get('/dashboard/login');
    const res = await client.post('/dashboard/login', { _csrf: client.csrf(), email, password });
    await client.close();
    return res;
  }

  it('per email: after 3 failures a minute even the right password waits, then works', async () => {
    const c = await newCustomer(t);
    const email = `throttle-${c.customerId.slice(0, 6)}@example.com`;
    await t.services.dashboard.users.createUser({ customerId: c.customerId, email, password: TEST_PASSWORD });
    for (let i = 0; i < 3; i++) assert.equal((await attempt(email, 'wrong password!')).status, 401);
    const blocked = await attempt(email, TEST_PASSWORD);
    assert.equal(blocked.status, 429);
    assert.match(blocked.text, /Too many failed sign-in attempts/);
    assert.ok(Number(blocked.headers['retry-after']) >= 1);
    t.clock.advance(61_000);
    assert.equal((await attempt(email, TEST_PASSWORD)).status, 303);
  });

  it('per address: failures against many emails block the address, and a minute later it works', async () => {
    const c = await newCustomer(t);
    const email = `addr-${c.customerId.slice(0, 6)}@example.com`;
    await t.services.dashboard.users.createUser({ customerId: c.customerId, email, password: TEST_PASSWORD });
    for (let i = 0; i < 8; i++) {
      assert.equal(
        (await attempt(`spray-${i}-${c.customerId.slice(0, 6)}@example.com`, 'guess guess')).status,
        401,
      );
    }
    assert.equal((await attempt(email, TEST_PASSWORD)).status, 429);
    t.clock.advance(61_000);
    assert.equal((await attempt(email, TEST_PASSWORD)).status, 303);
  });
});

const REDIS_URL = process.env.REDIS_URL;

function parallelThrottle(name: string, makeLimiter: () => Promise<RateLimiter>, skip: string | false) {
  describe(`dashboard sign-in throttling under parallel attempts (${name} limiter)`, { skip }, () => {
    let t: TestApp;
    before(async () => {
      // The production defaults: 10 failures a minute per address, 5 per email.
      t = await startTestApp({ limiter: await makeLimiter() });
    });
    after(async () => {
      await t.close();
    });

    const burst = (emails: string[], password: string) => signInBurst(t, emails, password);
    const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

    it('50 parallel wrong passwords for one email: only 5 reach the password check, the rest get 429', async () => {
      t.clock.advance(61_000);
      const c = await newCustomer(t);
      const email = `race-${c.customerId.slice(0, 8)}@example.com`;
      await t.services.dashboard.users.createUser({
        customerId: c.customerId,
        email,
        password: TEST_PASSWORD,
      });
      const { statuses, checked } = await burst(Array(50).fill(email), 'wrong password!');
      assert.equal(checked, 5);
      assert.deepEqual([count(statuses, 401), count(statuses, 429)], [5, 45]);
    });

    it('50 parallel guesses at 50 emails from one address: only 10 reach the password check', async () => {
      t.clock.advance(61_000);
      const tag = randomBytes(4).toString('hex');
      const emails = Array.from({ length: 50 }, (_, i) => `spray-${i}-${tag}@example.com`);
      const { statuses, checked } = await burst(emails, 'guess guess guess');
      assert.equal(checked, 10);
      assert.deepEqual([count(statuses, 401), count(statuses, 429)], [10, 40]);
    });

    it('a successful sign-in gives its slot back: 12 in a row in a minute from one address all get in', async () => {
      t.clock.advance(61_000);
      const c = await newCustomer(t);
      const email = `often-${c.customerId.slice(0, 8)}@example.com`;
      await t.services.dashboard.users.createUser({
        customerId: c.customerId,
        email,
        password: TEST_PASSWORD,
      });
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push(...(await burst([email], TEST_PASSWORD)).statuses);
      assert.deepEqual(statuses, Array(12).fill(303));
      assert.equal((await burst([email], 'wrong password!')).statuses[0], 401, 'failures still have room');
    });
  });
}

parallelThrottle('in-memory', async () => createMemoryLimiter(), false);

const redisClients: Redis[] = [];
const redisPrefix = `test:dashlogin:${randomBytes(4).toString('hex')}:`;
parallelThrottle(
  'Redis',
  async () => {
    const client = new Redis(REDIS_URL ?? '', REDIS_CLIENT_OPTIONS);
    redisClients.push(client);
    await new Promise((resolve) => client.once('ready', resolve));
    // No per-instance count to hide behind: the sign-in windows fail closed, so an attempt Redis did not
    // answer would be refused without its password check, and these counts would not add up.
    return createRedisLimiter(client, createLogger('silent'), redisPrefix);
  },
  REDIS_URL ? false : 'set REDIS_URL to run',
);
after(async () => {
  const keys = await redisClients[0]?.keys(`${redisPrefix}*`);
  if (keys?.length) await redisClients[0]?.del(...keys);
  for (const c of redisClients) c.disconnect();
});
