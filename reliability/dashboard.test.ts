import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { type DashboardClient, dashboardClient, TEST_PASSWORD } from '../src/testing/dashboard.fixtures.ts';
import { newCustomer, startTestApp, type TestApp, type TestCustomer } from '../src/testing/test-app.ts';
import { figure, rememberSecret, saveLogs } from './lib/collector.ts';
import { appRoutes } from './lib/routes.ts';

const SECTION = 'Security: dashboard';
const present = existsSync(new URL('../src/dashboard/plugin.ts', import.meta.url));

/** The headers every dashboard answer carries (docs/dashboard.md), and what each must say. */
const REQUIRED: Record<string, RegExp> = {
  'content-security-policy': /default-src 'none'.*frame-ancestors 'none'/,
  'x-frame-options': /^DENY$/,
  'x-content-type-options': /^nosniff$/,
  'referrer-policy': /^no-referrer$/,
  'strict-transport-security': /max-age=\d{7,}/,
};

describe('dashboard: headers, CSRF, sessions', {
  skip: present ? false : 'src/dashboard is not there yet',
}, () => {
  let t: TestApp;
  let c: TestCustomer;
  let subId = '';
  const email = () => `owner-${c.customerId.slice(0, 8)}@example.com`;

  async function signIn(): Promise<DashboardClient> {
    const client = dashboardClient(t);
    await client.get('/dashboard/login');
    const res = await client.post('/dashboard/login', {
      _csrf: client.csrf(),
      email: email(),
      password: TEST_PASSWORD,
    });
    assert.equal(res.status, 303, res.text.slice(0, 200));
    return client;
  }

  before(async () => {
    t = await startTestApp();
    c = await newCustomer(t);
    rememberSecret('api_key', c.key);
    await t.services.dashboard.users.createUser({
      customerId: c.customerId,
      email: email(),
      password: TEST_PASSWORD,
    });
    const sub = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: c.key,
      body: { url: 'https://hooks.example.com/dash', events: ['call.completed'] },
    });
    assert.equal(sub.status, 201);
    rememberSecret('webhook_secret', sub.body.secret);
    subId = sub.body.id;
  });
  after(async () => {
    saveLogs('dashboard-testapp', t.logs);
    await t.close();
  });

  /** Every dashboard route from the app itself, with our own ids in place of :id. */
  const dashboardRoutes = () =>
    appRoutes(t.app)
      .filter((r) => r.split(' ')[1]?.startsWith('/dashboard'))
      .map((r) => {
        const [method = 'GET', path = ''] = r.split(' ');
        const id = path.startsWith('/dashboard/webhooks')
          ? subId
          : path.startsWith('/dashboard/keys')
            ? c.keyId
            : c.customerId;
        return { method, path: path.replace(':id', id).replace(':file', 'dashboard.css') };
      });

  it('every dashboard page, signed in or not, carries the security headers', async () => {
    const client = await signIn();
    const anonymous = dashboardClient(t);
    const missing: string[] = [];
    let pages = 0;
    try {
      for (const { method, path } of dashboardRoutes().filter((r) => r.method === 'GET')) {
        for (const [who, cl] of [
          ['signed in', client],
          ['anonymous', anonymous],
        ] as const) {
          const res = await cl.get(path);
          pages += 1;
          for (const [name, pattern] of Object.entries(REQUIRED)) {
            const value = String(res.headers[name] ?? '');
            if (!pattern.test(value))
              missing.push(`${who} ${method} ${path} (${res.status}): ${name}=${value}`);
          }
          if (
            who === 'signed in' &&
            !path.includes('/static/') &&
            res.headers['cache-control'] !== 'no-store'
          )
            missing.push(`${path}: cache-control ${String(res.headers['cache-control'])}`);
        }
      }
    } finally {
      await client.close();
      await anonymous.close();
    }
    figure({ section: SECTION, name: 'pages checked for security headers', value: pages });
    figure({
      section: SECTION,
      name: 'missing or weak headers',
      value: missing.length,
      bound: '= 0',
      ok: missing.length === 0,
    });
    assert.deepEqual(missing, []);
  });

  it('every form post is refused without the CSRF token, with a wrong one, and cross-site; nothing changes', async () => {
    // What a forged post could change: the key, and the subscription's signing secret.
    const keyAndSecret = async () =>
      JSON.stringify([
        await t.services.keys.getKey(c.customerId, c.keyId),
        (
          await t.db
            .selectFrom('webhook_subscriptions')
            .selectAll()
            .where('id', '=', subId)
            .executeTakeFirst()
        )?.secret_encrypted,
      ]);
    const client = await signIn();
    const refusedWrong: string[] = [];
    let posts = 0;
    try {
      await client.get('/dashboard/keys');
      const token = client.csrf();
      const before = await keyAndSecret();
      for (const { path } of dashboardRoutes().filter(
        (r) => r.method === 'POST' && r.path !== '/dashboard/login',
      )) {
        for (const [what, form, headers] of [
          ['no token', {}, {}],
          ['wrong token', { _csrf: `${token}x` }, {}],
          ['cross-site with the token', { _csrf: token }, { 'sec-fetch-site': 'cross-site' }],
          ['foreign origin with the token', { _csrf: token }, { origin: 'https://evil.example' }],
        ] as const) {
          const res = await client.post(path, form, headers);
          posts += 1;
          if (res.status !== 403) refusedWrong.push(`${what} ${path}: ${res.status}`);
        }
      }
      const after = await keyAndSecret();
      assert.equal(after, before, 'a refused post changed the key or the subscription');
      // And the same session still works, so the refusals were not just a dead session.
      assert.equal((await client.get('/dashboard/keys')).status, 200);
    } finally {
      await client.close();
    }
    figure({ section: SECTION, name: 'forged form posts (every POST route × 4 forgeries)', value: posts });
    figure({
      section: SECTION,
      name: 'forged posts not refused with 403',
      value: refusedWrong.length,
      bound: '= 0',
      ok: refusedWrong.length === 0,
    });
    assert.deepEqual(refusedWrong, []);
  });

  it('sessions: a hardened cookie, renewed at sign-in, dead after sign-out and after 12 h idle', async () => {
    // Session fixation: a cookie the visitor already had is not the one that gets signed in.
    const client = dashboardClient(t);
    try {
      client.cookies.set('__Host-vca_session', 'attacker-chosen-value');
      await client.get('/dashboard/login');
      const login = await client.post('/dashboard/login', {
        _csrf: client.csrf(),
        email: email(),
        password: TEST_PASSWORD,
      });
      assert.equal(login.status, 303);
      const set = [login.headers['set-cookie']]
        .flat()
        .map(String)
        .find((l) => l.startsWith('__Host-vca_session='));
      assert.ok(set, 'a session cookie is set at sign-in');
      assert.match(set, /;\s*Secure/i);
      assert.match(set, /;\s*HttpOnly/i);
      assert.match(set, /;\s*SameSite=Strict/i);
      assert.match(set, /;\s*Path=\//i);
      assert.doesNotMatch(set, /Domain=/i, '__Host- cookies have no Domain');
      const session = client.cookies.get('__Host-vca_session') ?? '';
      assert.notEqual(session, 'attacker-chosen-value');
      assert.ok(session.length >= 40, 'a long random token');
      figure({
        section: SECTION,
        name: 'session cookie',
        value: '__Host-, Secure, HttpOnly, SameSite=Strict; new at sign-in',
        ok: true,
      });

      // Sign-out deletes the session: replaying the old cookie does not work.
      await client.get('/dashboard/keys');
      const out = await client.post('/dashboard/logout', { _csrf: client.csrf() });
      assert.equal(out.status, 303);
      const replay = dashboardClient(t);
      replay.cookies.set('__Host-vca_session', session);
      const page = await replay.get('/dashboard/keys');
      assert.equal(page.status, 303, 'signed out: sent to sign-in');
      await replay.close();

      // Idle limit.
      const idle = await signIn();
      assert.equal((await idle.get('/dashboard/keys')).status, 200);
      t.clock.advance(12 * 3600 * 1000 + 1000);
      const expired = await idle.get('/dashboard/keys');
      assert.equal(expired.status, 303, 'after 12 h idle the session is over');
      await idle.close();
      figure({
        section: SECTION,
        name: 'old cookie after sign-out / after 12 h idle',
        value: 'refused / refused',
        ok: true,
      });
    } finally {
      await client.close();
    }
  });
});
