import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type DashboardClient,
  dashboardClient,
  signedIn,
  TEST_PASSWORD,
} from '../testing/dashboard.fixtures.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';

const NUL = 'a\u0000b';
const KEY_FORM = { preset: 'automation', daily_spend_cap_usd: '10.00', allowed_countries: 'US' };

/**
 * Forms with text the database cannot keep (a NUL; an unpaired surrogate cannot arrive in a urlencoded form, its
 * decoding gives U+FFFD) used to answer 500. A form that shows itself again does so with 422 and the message next
 * to the field; any other form answers a 422 page naming it. Nothing is stored or looked up.
 */
describe('dashboard forms with text the database cannot keep', () => {
  let t: TestApp;
  let client: DashboardClient;
  let customerId = '';
  let email = '';
  before(async () => {
    t = await startTestApp();
    customerId = (await newCustomer(t)).customerId;
    ({ client, email } = await signedIn(t, customerId));
  });
  after(async () => {
    await client.close();
    await t.close();
  });

  const keys = () =>
    t.db.selectFrom('api_keys').select(['id', 'name']).where('customer_id', '=', customerId).execute();
  const subscriptions = () =>
    t.db
      .selectFrom('webhook_subscriptions')
      .select(['id', 'description'])
      .where('customer_id', '=', customerId)
      .execute();
  async function post(page: string, path: string, form: Record<string, string | string[]>) {
    await client.get(page);
    return client.post(path, { _csrf: client.csrf(), ...form });
  }

  it('a key name with a NUL: the form again, 422, the message at the field; no key', async () => {
    const before = (await keys()).length;
    const res = await post('/dashboard/keys/new', '/dashboard/keys', { ...KEY_FORM, name: NUL });
    assert.equal(res.status, 422, res.text);
    assert.match(res.text, /<a href="#name">“name” must not contain the NUL character \(U\+0000\)\.<\/a>/);
    assert.doesNotMatch(res.text, /href="#daily_spend_cap_usd"/, 'the only problem');
    assert.match(res.text, /<form/, 'the form is shown again');
    assert.match(res.text, /value="a\uFFFDb"/, 'what was typed, the NUL shown as U+FFFD');
    assert.equal((await keys()).length, before);
  });

  it('a key name with accents, CJK and emoji is kept as typed', async () => {
    const name = 'Clé – 日本 – 😀';
    const res = await post('/dashboard/keys/new', '/dashboard/keys', { ...KEY_FORM, name });
    assert.equal(res.status, 303, res.text);
    assert.ok((await keys()).some((k) => k.name === name));
  });

  for (const [what, form, field] of [
    ['a description with a NUL', { url: 'https://example.com/hooks', description: NUL }, 'description'],
    ['a URL with a NUL', { url: `https://example.com/${NUL}`, description: '' }, 'url'],
  ] as const) {
    it(`the webhook form with ${what}: the form again, 422, naming the field; nothing stored`, async () => {
      const before = (await subscriptions()).length;
      const res = await post('/dashboard/webhooks/new', '/dashboard/webhooks', {
        ...form,
        events: 'call.completed',
      });
      assert.equal(res.status, 422, res.text);
      assert.match(res.text, new RegExp(`“${field}” must not contain the NUL character`));
      assert.match(res.text, /<form/);
      assert.equal((await subscriptions()).length, before);
    });
  }

  it('the webhook form with accents, CJK and emoji keeps them', async () => {
    const description = 'Réception – 受付 – 📞';
    const res = await post('/dashboard/webhooks/new', '/dashboard/webhooks', {
      url: 'https://example.com/réception',
      events: 'call.completed',
      description,
    });
    assert.equal(res.status, 303, res.text);
    assert.ok((await subscriptions()).some((s) => s.description === description));
  });

  it('a form that shows no page back (scopes) answers a 422 page naming the field, and changes nothing', async () => {
    const [key] = await keys();
    assert.ok(key);
    const scopes = async () =>
      (await t.db.selectFrom('api_keys').select('scopes').where('id', '=', key.id).executeTakeFirstOrThrow())
        .scopes;
    const before = await scopes();
    const res = await post(`/dashboard/keys/${key.id}`, `/dashboard/keys/${key.id}/scopes`, {
      scopes: ['read_calls', NUL],
    });
    assert.equal(res.status, 422, res.text);
    assert.match(res.text, /“scopes” must not contain the NUL character/);
    assert.deepEqual(await scopes(), before);
  });

  it('the sign-in email with a NUL: the sign-in form again, 422, naming the field; a wrong password is still 401', async () => {
    const visitor = dashboardClient(t);
    try {
      await visitor.get('/dashboard/login');
      const res = await visitor.post('/dashboard/login', {
        _csrf: visitor.csrf(),
        email: `${email}\u0000`,
        password: TEST_PASSWORD,
      });
      assert.equal(res.status, 422, res.text);
      assert.match(res.text, /“email” must not contain the NUL character/);
      assert.match(res.text, /name="password"/, 'the sign-in form again');
      assert.equal(visitor.cookies.has('__Host-vca_session'), false, 'not signed in');
      const wrong = await visitor.post('/dashboard/login', {
        _csrf: visitor.csrf(),
        email: 'émile.日本@example.com',
        password: 'not it',
      });
      assert.equal(wrong.status, 401, 'ordinary Unicode is looked up as usual');
    } finally {
      await visitor.close();
    }
  });
});
