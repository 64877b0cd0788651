import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';

describe('GET /auth/whoami', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('returns the identity with every scope listed true or false', async () => {
    const c = await newCustomer(t, { scopes: ['read_calls', 'manage_webhooks'], name: 'Acme Dental' });
    const res = await t.request('GET', '/api/v1/auth/whoami', { key: c.key });
    assert.equal(res.status, 200);
    assert.equal(res.body.customer_id, c.customerId);
    assert.equal(res.body.customer_name, 'Acme Dental');
    assert.equal(res.body.mode, 'live');
    assert.deepEqual(res.body.permissions, {
      read_assistants: false,
      read_calls: true,
      read_analytics: false,
      outbound_calls: false,
      manage_webhooks: true,
      send_sms: false,
    });
  });

  it('needs no scope at all', async () => {
    const c = await newCustomer(t, { scopes: [] });
    const res = await t.request('GET', '/api/v1/auth/whoami', { key: c.key });
    assert.equal(res.status, 200);
    assert.ok(Object.values(res.body.permissions).every((v) => v === false));
  });
});
