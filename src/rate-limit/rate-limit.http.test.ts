import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';

const WHOAMI = '/api/v1/auth/whoami';

describe('per-customer and per-key windows (spec 8)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('one key: 60 admitted, the 61st is 429 rate.exceeded_key with Retry-After', async () => {
    const c = await newCustomer(t);
    for (let i = 0; i < 60; i++) {
      const res = await t.request('GET', WHOAMI, { key: c.key });
      assert.equal(res.status, 200);
      assert.equal(res.headers['x-ratelimit-limit'], '60');
      assert.equal(res.headers['x-ratelimit-remaining'], String(59 - i));
    }
    const refused = await t.request('GET', WHOAMI, { key: c.key });
    assert.equal(refused.status, 429);
    // Both windows are full at once here; the per-customer window is named first.
    assert.equal(refused.body.code, 'rate.exceeded');
    assert.equal(refused.headers['retry-after'], '60');
    assert.equal(refused.headers['x-ratelimit-remaining'], '0');
  });

  it('two keys of one customer share the customer window: the 61st request overall trips rate.exceeded', async () => {
    const c = await newCustomer(t);
    const { secret: second } = await t.services.keys.createKey({
      customerId: c.customerId,
      name: 'b',
      scopes: [],
    });
    for (let i = 0; i < 30; i++) {
      assert.equal((await t.request('GET', WHOAMI, { key: c.key })).status, 200);
      const res = await t.request('GET', WHOAMI, { key: second });
      assert.equal(res.status, 200);
      assert.equal(
        res.headers['x-ratelimit-remaining'],
        String(60 - 2 * (i + 1)),
        'the lower of the two windows',
      );
    }
    const refused = await t.request('GET', WHOAMI, { key: second });
    assert.equal(refused.body.code, 'rate.exceeded');
  });

  it('on a raised plan, each key keeps its own window: rate.exceeded_key while the customer has room', async () => {
    const c = await newCustomer(t, { rateLimitPerMinute: 600 });
    for (let i = 0; i < 60; i++) {
      const res = await t.request('GET', WHOAMI, { key: c.key });
      assert.equal(res.status, 200);
      assert.equal(res.headers['x-ratelimit-limit'], '60', 'the key window is the lower one');
    }
    const refused = await t.request('GET', WHOAMI, { key: c.key });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.code, 'rate.exceeded_key');
    const { secret: other } = await t.services.keys.createKey({
      customerId: c.customerId,
      name: 'b',
      scopes: [],
    });
    const res = await t.request('GET', WHOAMI, { key: other });
    assert.equal(res.status, 200, 'another key of the customer is unaffected');
    assert.equal(res.headers['x-ratelimit-remaining'], '59');
  });

  it('a key can be given a higher ceiling of its own, up to 600', async () => {
    const c = await newCustomer(t, { rateLimitPerMinute: 600, keyRateLimitPerMinute: 200 });
    const res = await t.request('GET', WHOAMI, { key: c.key });
    assert.equal(res.headers['x-ratelimit-limit'], '200');
    await assert.rejects(
      t.services.keys.createKey({ customerId: c.customerId, name: 'x', scopes: [], rateLimitPerMinute: 601 }),
    );
  });

  it('the windows slide with time (injected clock)', async () => {
    const c = await newCustomer(t);
    for (let i = 0; i < 60; i++) {
      await t.request('GET', WHOAMI, { key: c.key });
      t.clock.advance(500);
    }
    // The first request was 30 s ago; it leaves the window 30 s from now.
    const refused = await t.request('GET', WHOAMI, { key: c.key });
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '30');
    t.clock.advance(30_000);
    const admitted = await t.request('GET', WHOAMI, { key: c.key });
    assert.equal(admitted.status, 200);
    assert.equal(admitted.headers['x-ratelimit-remaining'], '0', 'one slot freed, and used');
  });

  it('a plan ceiling change (up to 600) applies on the next request', async () => {
    const c = await newCustomer(t, { keyRateLimitPerMinute: 600 });
    assert.equal((await t.request('GET', WHOAMI, { key: c.key })).headers['x-ratelimit-limit'], '60');
    await t.services.customers.setRateLimit(c.customerId, 600);
    const res = await t.request('GET', WHOAMI, { key: c.key });
    assert.equal(res.headers['x-ratelimit-limit'], '600');
    assert.equal(res.headers['x-ratelimit-remaining'], '598');
    await assert.rejects(t.services.customers.setRateLimit(c.customerId, 601));
  });

  it('errors after authentication count too (a 404 uses a slot)', async () => {
    const c = await newCustomer(t);
    await t.request('GET', '/api/v1/nope', { key: c.key });
    const res = await t.request('GET', WHOAMI, { key: c.key });
    assert.equal(res.headers['x-ratelimit-remaining'], '58');
  });
});
