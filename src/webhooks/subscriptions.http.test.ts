import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { subscriptionRow } from '../testing/webhook.fixtures.ts';

const PATH = '/api/v1/webhook-subscriptions';
const URL_A = 'https://hooks.example.com/a';

describe('webhook subscriptions API (spec 4.8-4.10)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({
      webhooks: { allowHttpTargets: false, allowPrivateTargets: false, maxPerCustomer: 3 },
    });
  });
  after(() => t.close());

  it('creates with 201 and a whsec_ secret; the same url and set of events returns it with 200 and no secret', async () => {
    const { key } = await newCustomer(t);
    const first = await t.request('POST', PATH, {
      key,
      body: { url: URL_A, events: ['call.completed', 'call.transcript.ready'], description: 'CRM' },
    });
    assert.equal(first.status, 201, first.text);
    assert.match(first.body.id, /^sub_[0-9a-f]{24}$/);
    assert.match(first.body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(first.body.is_active, true);
    assert.equal(first.body.description, 'CRM');
    assert.ok(Date.parse(first.body.created_at));

    const again = await t.request('POST', PATH, {
      key,
      body: { url: URL_A, events: ['call.transcript.ready', 'call.completed', 'call.completed'] },
    });
    assert.equal(again.status, 200);
    assert.equal(again.body.id, first.body.id);
    assert.equal(again.body.secret, undefined, 'the secret is shown only at creation');

    const other = await t.request('POST', PATH, { key, body: { url: URL_A, events: ['call.completed'] } });
    assert.equal(other.status, 201, 'another set of events is another subscription');
  });

  it('concurrent identical subscribes create exactly one', async () => {
    const { key } = await newCustomer(t);
    const body = { url: 'https://hooks.example.com/race', events: ['call.completed'] };
    const results = await Promise.all(
      Array.from({ length: 5 }, () => t.request('POST', PATH, { key, body })),
    );
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 200, 200, 200, 201]);
    assert.equal(new Set(results.map((r) => r.body.id)).size, 1);
  });

  it('refuses bad events (empty, unknown) and takes sms.* since SMS shipped', async () => {
    const { key } = await newCustomer(t);
    const empty = await t.request('POST', PATH, { key, body: { url: URL_A, events: [] } });
    assert.equal(empty.status, 422);
    const bad = await t.request('POST', PATH, {
      key,
      body: { url: URL_A, events: ['sms.received', 'call.started', 'sms.delivered'] },
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.issues.length, 2);
    assert.deepEqual(bad.body.issues[0].path, ['body', 'events', '1']);
    assert.match(bad.body.issues[0].message, /Unknown event "call.started"/);
    const sms = await t.request('POST', PATH, {
      key,
      body: { url: URL_A, events: ['sms.received', 'sms.sent'] },
    });
    assert.equal(sms.status, 201, sms.text);
  });

  it('refuses targets that are not public https URLs', async () => {
    const { key } = await newCustomer(t);
    for (const url of [
      'http://hooks.example.com/x',
      'https://user:pw@hooks.example.com/x',
      'https://127.0.0.1/x',
      'https://169.254.169.254/latest',
      'https://[::1]/x',
      'https://localhost/x',
      'not a url',
      `https://example.com/${'a'.repeat(2100)}`,
    ]) {
      const res = await t.request('POST', PATH, { key, body: { url, events: ['call.completed'] } });
      assert.equal(res.status, 422, url);
      assert.deepEqual(res.body.issues[0].path, ['body', 'url']);
    }
  });

  it('needs manage_webhooks on every route', async () => {
    const { key } = await newCustomer(t, { scopes: ['read_calls', 'read_assistants'] });
    for (const [method, path] of [
      ['POST', PATH],
      ['GET', PATH],
      ['DELETE', `${PATH}/sub_000000000000000000000000`],
      ['DELETE', `${PATH}?id=sub_000000000000000000000000`],
      ['POST', `${PATH}/sub_000000000000000000000000/rotate-secret`],
    ] as const) {
      const res = await t.request(method, path, { key, body: method === 'POST' ? {} : undefined });
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.equal(res.body.code, 'perm.denied');
    }
  });

  it('lists the live subscriptions, never secrets, never another customer', async () => {
    const a = await newCustomer(t);
    const b = await newCustomer(t);
    await t.request('POST', PATH, { key: a.key, body: { url: URL_A, events: ['call.completed'] } });
    await t.request('POST', PATH, { key: b.key, body: { url: URL_A, events: ['call.completed'] } });
    const list = await t.request('GET', PATH, { key: a.key });
    assert.equal(list.status, 200);
    assert.equal(list.body.data.length, 1);
    assert.equal(list.body.has_more, false);
    assert.equal(list.body.data[0].secret, undefined);
    assert.equal(list.text.includes('whsec_'), false);
  });

  it('deletes by path and by the legacy ?id= form; another customer gets 404', async () => {
    const a = await newCustomer(t);
    const b = await newCustomer(t);
    const one = await t.request('POST', PATH, {
      key: a.key,
      body: { url: URL_A, events: ['call.completed'] },
    });
    const two = await t.request('POST', PATH, {
      key: a.key,
      body: { url: URL_A, events: ['call.insight.received'] },
    });
    assert.equal((await t.request('DELETE', `${PATH}/${one.body.id}`, { key: b.key })).status, 404);
    const byPath = await t.request('DELETE', `${PATH}/${one.body.id}`, { key: a.key });
    assert.deepEqual([byPath.status, byPath.body], [200, { id: one.body.id, deleted: true }]);
    const legacy = await t.request('DELETE', `${PATH}?id=${two.body.id}`, { key: a.key });
    assert.deepEqual([legacy.status, legacy.body], [200, { id: two.body.id, deleted: true }]);
    assert.equal(
      (await t.request('DELETE', `${PATH}/${one.body.id}`, { key: a.key })).status,
      404,
      'already gone',
    );
    assert.equal((await t.request('GET', PATH, { key: a.key })).body.data.length, 0);
    assert.equal((await t.request('DELETE', `${PATH}/not-an-id`, { key: a.key })).status, 422);
  });

  it('caps subscriptions per customer with 409 resource.conflict', async () => {
    const { key } = await newCustomer(t);
    for (let i = 0; i < 3; i++) {
      assert.equal(
        (await t.request('POST', PATH, { key, body: { url: `${URL_A}/${i}`, events: ['call.completed'] } }))
          .status,
        201,
      );
    }
    const over = await t.request('POST', PATH, {
      key,
      body: { url: `${URL_A}/x`, events: ['call.completed'] },
    });
    assert.equal(over.status, 409);
    assert.equal(over.body.code, 'resource.conflict');
  });

  it('rotates the secret: a new whsec_ returned once, with the old one valid for a grace period', async () => {
    const { key } = await newCustomer(t);
    const created = await t.request('POST', PATH, { key, body: { url: URL_A, events: ['call.completed'] } });
    const rotated = await t.request('POST', `${PATH}/${created.body.id}/rotate-secret`, { key, body: {} });
    assert.equal(rotated.status, 200);
    assert.match(rotated.body.secret, /^whsec_/);
    assert.notEqual(rotated.body.secret, created.body.secret);
    assert.ok(Date.parse(rotated.body.previous_secret_expires_at) > t.clock.now().getTime());
  });

  it('stores secrets encrypted, never in plain text', async () => {
    const { key } = await newCustomer(t);
    const created = await t.request('POST', PATH, { key, body: { url: URL_A, events: ['call.completed'] } });
    const row = await subscriptionRow(t, created.body.id);
    assert.ok(!JSON.stringify(row).includes(created.body.secret.slice(6)));
    assert.ok(!t.logs.join('').includes(created.body.secret.slice(6)));
  });
});

describe('verification probe (?challenge=)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ probesPerMinutePerIp: 3 });
  });
  after(() => t.close());

  it('answers 202 with the token, without a key, storing nothing', async () => {
    const before = await t.db
      .selectFrom('webhook_subscriptions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const res = await t.request('POST', `${PATH}?challenge=abc123-XYZ`, { localAddress: '127.0.3.1' });
    assert.equal(res.status, 202);
    assert.deepEqual(res.body, { challenge: 'abc123-XYZ' });
    assert.ok(res.headers['x-request-id']);
    assert.equal(res.headers['x-ratelimit-limit'], '3');
    const after = await t.db
      .selectFrom('webhook_subscriptions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(after.n), Number(before.n));
  });

  it('works with a body and a key too, still storing nothing', async () => {
    const { key } = await newCustomer(t);
    const res = await t.request('POST', `${PATH}?challenge=t0k`, {
      key,
      body: { url: URL_A, events: ['call.completed'] },
      localAddress: '127.0.3.2',
    });
    assert.deepEqual([res.status, res.body], [202, { challenge: 't0k' }]);
    assert.equal((await t.request('GET', PATH, { key })).body.data.length, 0);
  });

  it('bounds the token and rate-limits per address', async () => {
    const ip = '127.0.3.3';
    const long = await t.request('POST', `${PATH}?challenge=${'a'.repeat(257)}`, { localAddress: ip });
    assert.equal(long.status, 422);
    await t.request('POST', `${PATH}?challenge=b`, { localAddress: ip });
    await t.request('POST', `${PATH}?challenge=c`, { localAddress: ip });
    const limited = await t.request('POST', `${PATH}?challenge=d`, { localAddress: ip });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.code, 'rate.exceeded_ip');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
  });
});
