import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { touchLastUsed } from './keys.repository.ts';

describe('last_used_at', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const lastUsed = async (keyId: string) =>
    (
      await t.db
        .selectFrom('api_keys')
        .select('last_used_at')
        .where('id', '=', keyId)
        .executeTakeFirstOrThrow()
    ).last_used_at;
  const whoami = (key: string) => t.request('GET', '/api/v1/auth/whoami', { key });

  it('is written by the periodic flush, not by the request, and moves at most once a minute', async () => {
    const c = await newCustomer(t);
    const first = t.clock.now();
    assert.equal((await whoami(c.key)).status, 200);
    assert.equal(await lastUsed(c.keyId), null, 'no write on the request path');
    await t.services.authenticator.flushLastUsed();
    assert.equal((await lastUsed(c.keyId))?.getTime(), first.getTime());

    t.clock.advance(59_000);
    await whoami(c.key);
    await t.services.authenticator.flushLastUsed();
    assert.equal((await lastUsed(c.keyId))?.getTime(), first.getTime(), 'within the minute: unchanged');

    t.clock.advance(1_000);
    const later = t.clock.now();
    await whoami(c.key);
    t.clock.advance(5_000);
    await whoami(c.key);
    await t.services.authenticator.flushLastUsed();
    assert.equal(
      (await lastUsed(c.keyId))?.getTime(),
      later.getTime() + 5_000,
      'uses before one flush collapse into the latest',
    );
  });

  it('never moves back when another instance wrote a later use', async () => {
    const c = await newCustomer(t);
    const now = t.clock.now();
    await touchLastUsed(t.db, [{ keyId: c.keyId, at: now }]);
    await touchLastUsed(t.db, [{ keyId: c.keyId, at: new Date(now.getTime() - 120_000) }]);
    assert.equal((await lastUsed(c.keyId))?.getTime(), now.getTime());
  });

  it('a request refused for its scope after authenticating counts as a use', async () => {
    const c = await newCustomer(t, { scopes: [] });
    assert.equal((await t.request('GET', '/api/v1/calls', { key: c.key })).status, 403);
    await t.services.authenticator.flushLastUsed();
    assert.notEqual(await lastUsed(c.keyId), null, 'authenticated, then refused for scope: a use');
  });
});
