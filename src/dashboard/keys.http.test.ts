import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type DashboardClient, shownSecret, signedIn } from '../testing/dashboard.fixtures.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';

/** The key pages through forms and redirects, as a browser without JavaScript would use them. */
describe('dashboard API keys', () => {
  let t: TestApp;
  let client: DashboardClient;
  let customerId = '';

  before(async () => {
    t = await startTestApp({ rotationGraceSeconds: 600 });
    customerId = (await newCustomer(t)).customerId;
    ({ client } = await signedIn(t, customerId));
  });
  after(async () => {
    await client.close();
    await t.close();
  });

  async function create(form: Record<string, string | string[]>) {
    await client.get('/dashboard/keys/new');
    return client.post('/dashboard/keys', { _csrf: client.csrf(), ...form });
  }

  it('offers every scope, send_sms included since SMS shipped, and the automation preset', async () => {
    const page = await client.get('/dashboard/keys/new');
    for (const s of [
      'read_assistants',
      'read_calls',
      'read_analytics',
      'outbound_calls',
      'manage_webhooks',
      'send_sms',
    ]) {
      assert.match(page.text, new RegExp(`id="scope-${s}" name="scopes" value="${s}"(?! disabled)`));
    }
    assert.doesNotMatch(page.text, /Coming soon/);
    assert.match(page.text, /id="preset-automation" name="preset" value="automation" checked/);
  });

  it('creates a key with the automation preset; shows it once; it works at once with exactly those scopes', async () => {
    const res = await create({
      name: 'Zapier',
      preset: 'automation',
      scopes: ['outbound_calls'], // ignored: the preset decides
      expires_at: '2099-12-31',
      daily_spend_cap_usd: '42.50',
      allowed_countries: 'us, CA',
    });
    assert.equal(res.status, 303);
    const location = String(res.headers.location);
    const keyId = location.split('/').pop() ?? '';
    const page = await client.get(location);
    const secret = shownSecret(page.text);
    assert.ok(secret);
    assert.match(page.text, /data-copy="secret-value"/);
    assert.equal(shownSecret((await client.get(location)).text), null, 'shown once');

    const key = await t.services.keys.getKey(customerId, keyId);
    assert.equal(key.customer_id, customerId);
    assert.deepEqual(key.scopes, ['read_assistants', 'read_calls', 'manage_webhooks']);
    assert.equal(key.expires_at, '2099-12-31T23:59:59.000Z');
    assert.equal(key.daily_spend_cap_usd, '42.50');
    assert.deepEqual(key.allowed_countries, ['US', 'CA']);
    const who = await t.request('GET', '/api/v1/auth/whoami', { key: secret });
    assert.equal(who.status, 200);
    assert.equal(who.body.permissions.outbound_calls, false);
  });

  it('refuses bad input with every problem listed, keeps what was typed, and creates nothing', async () => {
    const before = (await t.services.keys.listKeys(customerId)).length;
    const res = await create({
      name: '  ',
      preset: 'custom',
      scopes: ['read_calls', 'admin'],
      daily_spend_cap_usd: '12.345',
      allowed_countries: 'US, XX',
      expires_at: 'soon',
    });
    assert.equal(res.status, 422);
    assert.match(res.text, /Give a date/);
    const second = await create({
      name: '  ',
      preset: 'custom',
      scopes: ['read_calls', 'admin'],
      daily_spend_cap_usd: '12.345',
      allowed_countries: 'US, XX',
    });
    assert.equal(second.status, 422);
    for (const m of [
      /Name must not be empty/,
      /Unknown scope &quot;admin&quot;/,
      /at most 2 decimals/,
      /Unknown country code &quot;XX&quot;/,
    ]) {
      assert.match(second.text, m);
    }
    assert.match(second.text, /value="US, XX"/);
    assert.equal((await t.services.keys.listKeys(customerId)).length, before);
  });

  it('changes scopes (the next request follows), rotates (both values during the grace), revokes', async () => {
    const created = await create({
      name: 'CRM',
      preset: 'custom',
      scopes: ['read_calls'],
      daily_spend_cap_usd: '1',
      allowed_countries: 'US',
    });
    const location = String(created.headers.location);
    const keyId = location.split('/').pop() ?? '';
    const secret = shownSecret((await client.get(location)).text) ?? '';
    assert.equal((await t.request('GET', '/api/v1/calls', { key: secret })).status, 200);

    const scoped = await client.post(`/dashboard/keys/${keyId}/scopes`, {
      _csrf: client.csrf(),
      scopes: 'read_assistants',
    });
    assert.equal(scoped.status, 303);
    assert.match((await client.get(location)).text, /Scopes saved: read_assistants/);
    assert.equal((await t.request('GET', '/api/v1/calls', { key: secret })).body.code, 'perm.denied');
    assert.equal((await t.request('GET', '/api/v1/assistants', { key: secret })).status, 200);
    const smuggled = await client.post(`/dashboard/keys/${keyId}/scopes`, {
      _csrf: client.csrf(),
      scopes: ['read_calls', 'root'],
    });
    assert.equal(smuggled.status, 422);
    assert.deepEqual((await t.services.keys.getKey(customerId, keyId)).scopes, ['read_assistants']);

    await client.get(location);
    const rotated = await client.post(`/dashboard/keys/${keyId}/rotate`, { _csrf: client.csrf() });
    assert.equal(rotated.status, 303);
    const after = await client.get(location);
    const fresh = shownSecret(after.text) ?? '';
    assert.notEqual(fresh, secret);
    const until = new Date(t.clock.now().getTime() + 600_000).toISOString().slice(0, 16).replace('T', ' ');
    assert.match(after.text, new RegExp(`previous value keeps working until ${until} UTC`));
    assert.equal((await t.request('GET', '/api/v1/auth/whoami', { key: secret })).status, 200);
    assert.equal((await t.request('GET', '/api/v1/auth/whoami', { key: fresh })).status, 200);
    assert.match((await client.get('/dashboard/keys')).text, /previous value valid until/);
    t.clock.advance(600_001);
    assert.equal((await t.request('GET', '/api/v1/auth/whoami', { key: secret })).status, 401);

    const confirm = await client.get(`/dashboard/keys/${keyId}/revoke`);
    assert.match(confirm.text, /cannot be undone/);
    assert.equal(
      (await t.services.keys.getKey(customerId, keyId)).status,
      'active',
      'the confirmation page changes nothing',
    );
    const revoked = await client.post(`/dashboard/keys/${keyId}/revoke`, { _csrf: client.csrf() });
    assert.equal(revoked.status, 303);
    const res = await t.request('GET', '/api/v1/auth/whoami', { key: fresh });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'auth.revoked');
    const page = await client.get(location);
    assert.match(page.text, /Revoked/);
    assert.doesNotMatch(page.text, /Rotate key/, 'a revoked key offers no actions');
    const again = await client.post(`/dashboard/keys/${keyId}/rotate`, { _csrf: client.csrf() });
    assert.equal(again.status, 409);
  });

  it("shows the customer's outbound limits on the form, filled in with what a key gets without choosing", async () => {
    const page = await client.get('/dashboard/keys/new');
    assert.match(page.text, /id="daily_spend_cap_usd"[^>]* value="100.00"/);
    assert.match(page.text, /id="allowed_countries"[^>]* value="US, CA"/);
    assert.match(page.text, /At most \$100\.00, the largest your account allows/);
    assert.match(page.text, /Your account may call: <strong>US, CA<\/strong>/);
  });

  it("refuses the issue's key (KP, CU, SO, IR, SY; 9999999999.99) as form errors naming each bound, creating nothing", async () => {
    const before = (await t.services.keys.listKeys(customerId)).length;
    const res = await create({
      name: 'Everywhere',
      preset: 'custom',
      scopes: ['outbound_calls'],
      daily_spend_cap_usd: '9999999999.99',
      allowed_countries: 'KP, CU, SO, IR, SY',
    });
    assert.equal(res.status, 422, res.text.slice(0, 300));
    assert.match(
      res.text,
      /<a href="#allowed_countries">KP, CU, SO, IR, SY are outside the countries this customer may call \(US, CA\), set by the operator\.<\/a>/,
    );
    assert.match(
      res.text,
      /<a href="#daily_spend_cap_usd">Must be at most 100\.00, the largest daily cap the operator allows this customer\.<\/a>/,
    );
    assert.match(res.text, /value="KP, CU, SO, IR, SY"/, 'what was typed is kept');
    assert.equal((await t.services.keys.listKeys(customerId)).length, before);
  });

  it('creates a key inside limits the operator widened, and shows what it can still do once they are lowered', async () => {
    const other = (await newCustomer(t)).customerId;
    await t.services.customers.setOutboundLimits(other, {
      countries: ['US', 'GB', '+882'],
      maxDailyCapUsd: '500',
    });
    const { client: theirs } = await signedIn(t, other);
    try {
      await theirs.get('/dashboard/keys/new');
      const res = await theirs.post('/dashboard/keys', {
        _csrf: theirs.csrf(),
        name: 'Europe',
        preset: 'custom',
        scopes: 'outbound_calls',
        daily_spend_cap_usd: '300',
        allowed_countries: 'gb, +882',
      });
      assert.equal(res.status, 303, res.text.slice(0, 300));
      const location = String(res.headers.location);
      const key = await t.services.keys.getKey(other, location.split('/').pop() ?? '');
      assert.deepEqual([key.allowed_countries, key.daily_spend_cap_usd], [['GB', '+882'], '300.00']);
      assert.doesNotMatch((await theirs.get(location)).text, /outbound limits/);

      await t.services.customers.setOutboundLimits(other, { countries: ['US', 'GB'], maxDailyCapUsd: '100' });
      const page = await theirs.get(location);
      assert.match(
        page.text,
        /<dt>Daily spend cap<\/dt><dd>\$100\.00<div class="small muted">Set to \$300\.00/,
      );
      assert.match(page.text, /<dt>Outbound countries<\/dt><dd>GB<div class="small muted">Set to GB, \+882;/);
      assert.match((await theirs.get('/dashboard/keys')).text, /Held to your account's outbound limits/);
    } finally {
      await theirs.close();
    }
  });
});
