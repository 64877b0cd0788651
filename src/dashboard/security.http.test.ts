import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type DashboardClient, signedIn } from '../testing/dashboard.fixtures.ts';
import { newCustomer, startTestApp, type TestApp, type TestCustomer } from '../testing/test-app.ts';
import { callFor } from '../testing/webhook.fixtures.ts';

/** CSRF and tenant isolation, over HTTP (the browser suite repeats the essentials in Chromium). */
describe('dashboard security', () => {
  let t: TestApp;
  let a: TestCustomer;
  let b: TestCustomer;
  let alice: DashboardClient;
  let bob: DashboardClient;
  let bSub = '';
  let bCall = '';

  before(async () => {
    t = await startTestApp();
    a = await newCustomer(t, { name: 'Alpha' });
    b = await newCustomer(t, { name: 'Beta' });
    ({ client: alice } = await signedIn(t, a.customerId));
    ({ client: bob } = await signedIn(t, b.customerId));
    const sub = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: b.key,
      body: {
        url: 'https://hooks.beta.example/in',
        events: ['call.completed'],
        description: 'beta-secret-hook',
      },
    });
    assert.equal(sub.status, 201, sub.text);
    bSub = sub.body.id;
    bCall = (await callFor(t, b.customerId)).callId;
  });
  after(async () => {
    await alice.close();
    await bob.close();
    await t.close();
  });

  const revoke = (
    client: DashboardClient,
    form: Record<string, string>,
    headers: Record<string, string> = {},
  ) => client.post(`/dashboard/keys/${a.keyId}/revoke`, form, headers);

  it('refuses a change without the session token, with a wrong one, or with another session’s', async () => {
    await alice.get('/dashboard/keys');
    const aliceToken = alice.csrf();
    await bob.get('/dashboard/keys');
    const bobToken = bob.csrf();
    assert.notEqual(aliceToken, bobToken);
    for (const form of [
      {},
      { _csrf: '' },
      { _csrf: `${aliceToken}x` },
      { _csrf: bobToken },
      { _csrf: [aliceToken, 'x'] },
    ]) {
      const res = await alice.post(`/dashboard/keys/${a.keyId}/revoke`, form as Record<string, string>);
      assert.equal(res.status, 403, JSON.stringify(form));
      assert.match(res.text, /did not come from this dashboard/);
    }
    assert.equal((await t.services.keys.getKey(a.customerId, a.keyId)).status, 'active');
  });

  it('refuses a cross-site post even with the right token (Sec-Fetch-Site, then Origin)', async () => {
    await alice.get('/dashboard/keys');
    const token = alice.csrf();
    const cases: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'https://evil.example' },
      { origin: 'not a url' },
    ];
    for (const headers of cases) {
      const res = await revoke(alice, { _csrf: token }, headers);
      assert.equal(res.status, 403, JSON.stringify(headers));
    }
    assert.equal((await t.services.keys.getKey(a.customerId, a.keyId)).status, 'active');
  });

  it('accepts the same post from its own page (Origin null is what no-referrer browsers send)', async () => {
    const c = await newCustomer(t);
    const { client } = await signedIn(t, c.customerId);
    await client.get(`/dashboard/keys/${c.keyId}/revoke`);
    const res = await client.post(
      `/dashboard/keys/${c.keyId}/revoke`,
      { _csrf: client.csrf() },
      { 'sec-fetch-site': 'same-origin', origin: 'null' },
    );
    assert.equal(res.status, 303);
    assert.equal((await t.services.keys.getKey(c.customerId, c.keyId)).status, 'revoked');
    await client.close();
  });

  it('answers 404 for every page and action on another customer’s key, and changes nothing', async () => {
    await alice.get('/dashboard/keys');
    const token = alice.csrf();
    for (const path of [`/dashboard/keys/${b.keyId}`, `/dashboard/keys/${b.keyId}/revoke`]) {
      const res = await alice.get(path);
      assert.equal(res.status, 404, path);
      assert.doesNotMatch(res.text, /Beta|key \d/, 'the page names nothing of the other customer');
    }
    for (const action of ['scopes', 'rotate', 'revoke']) {
      const res = await alice.post(`/dashboard/keys/${b.keyId}/${action}`, {
        _csrf: token,
        scopes: 'read_calls',
      });
      assert.equal(res.status, 404, action);
    }
    const key = await t.services.keys.getKey(b.customerId, b.keyId);
    assert.equal(key.status, 'active');
    assert.ok(key.scopes.includes('manage_webhooks'));
    assert.equal(
      (await t.request('GET', '/api/v1/auth/whoami', { key: b.key })).status,
      200,
      'not rotated away',
    );
  });

  it('answers 404 for another customer’s subscription, its log and every action on it', async () => {
    await alice.get('/dashboard/webhooks');
    const token = alice.csrf();
    for (const path of [`/dashboard/webhooks/${bSub}`, `/dashboard/webhooks/${bSub}/delete`]) {
      assert.equal((await alice.get(path)).status, 404, path);
    }
    for (const action of ['enable', 'disable', 'test', 'rotate-secret', 'redeliver', 'delete']) {
      const res = await alice.post(`/dashboard/webhooks/${bSub}/${action}`, {
        _csrf: token,
        since: '2020-01-01T00:00',
      });
      assert.equal(res.status, 404, action);
    }
    const sub = await t.services.subscriptions.get(b.customerId, bSub);
    assert.equal(sub.is_active, true);
    const log = await t.services.subscriptions.deliveryLog(b.customerId, bSub);
    assert.equal(log.length, 0, 'no test event was sent to it');
  });

  it('answers 404 for another customer’s call, and malformed ids', async () => {
    assert.equal((await alice.get(`/dashboard/calls/${bCall}`)).status, 404);
    for (const path of [
      '/dashboard/calls/nope',
      '/dashboard/keys/1',
      '/dashboard/webhooks/sub_zz',
      '/dashboard/webhooks/sub_0123456789abcdef01234567',
    ]) {
      assert.equal((await alice.get(path)).status, 404, path);
    }
  });

  it('lists only the signed-in customer’s keys, subscriptions and calls', async () => {
    const bCallRow = await t.services.calls.getCall(b.customerId, bCall);
    const pages = await Promise.all(
      [
        '/dashboard/keys',
        '/dashboard/webhooks',
        '/dashboard/calls',
        '/dashboard/assistants',
        '/dashboard/usage',
      ].map((p) => alice.get(p)),
    );
    for (const page of pages) {
      assert.equal(page.status, 200);
      // URLs are shown with a line-break opportunity (<wbr>) after each / and .: compare without them.
      const text = page.text.replaceAll('<wbr>', '');
      for (const secret of [
        b.keyId,
        bSub,
        bCall,
        'hooks.beta.example',
        'beta-secret-hook',
        bCallRow.assistant_id,
      ]) {
        assert.equal(text.includes(secret), false, secret);
      }
    }
    // The other customer sees their own.
    assert.match((await bob.get('/dashboard/webhooks')).text.replaceAll('<wbr>', ''), /hooks\.beta\.example/);
  });

  it('escapes what customers typed: a key named like markup is shown as text', async () => {
    await alice.get('/dashboard/keys/new');
    const name = '<img src=x onerror=alert(1)>"\'';
    const res = await alice.post('/dashboard/keys', {
      _csrf: alice.csrf(),
      name,
      preset: 'automation',
      daily_spend_cap_usd: '10',
      allowed_countries: 'US',
    });
    assert.equal(res.status, 303);
    for (const page of [await alice.get(String(res.headers.location)), await alice.get('/dashboard/keys')]) {
      assert.equal(page.text.includes('<img src=x'), false);
      assert.ok(page.text.includes('&lt;img src=x onerror=alert(1)&gt;&quot;&#39;'));
    }
  });
});
