import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { type Notifications, postgresNotifications } from '../db/notifications.ts';
import { createLogger } from '../logger.ts';
import { nextKeyChange } from '../testing/key-changes.ts';
import {
  newCustomer,
  PRODUCTION_OUTBOUND_DEFAULTS,
  startTestApp,
  type TestApp,
} from '../testing/test-app.ts';
import { type Authenticator, createAuthenticator, isFailure, type Principal } from './authenticate.ts';
import { createKeyCache, type KeyCache } from './key-cache.ts';
import { createKeyHasher } from './key-hash.ts';

const SECRET = 'key-cache-test-secret-0123456789abcdef';
const WHOAMI = '/api/v1/auth/whoami';
const url = process.env.DATABASE_URL;

describe('keys held in memory: a change applies to the very next request of the instance that made it', () => {
  let t: TestApp;
  before(async () => {
    // Connected, but never delivering: only what the instance tells its own cache can empty it.
    const deaf: Notifications = { listen: () => () => {}, connected: () => true, close: async () => {} };
    t = await startTestApp({ serverSecret: SECRET, rotationGraceSeconds: 60, notifications: deaf });
  });
  after(() => t.close());

  const twice = async (key: string) => {
    await t.request('GET', WHOAMI, { key });
    return t.request('GET', WHOAMI, { key });
  };

  it('revocation', async () => {
    const c = await newCustomer(t);
    assert.equal((await twice(c.key)).status, 200);
    await t.services.keys.revokeKey(c.customerId, c.keyId);
    assert.equal((await t.request('GET', WHOAMI, { key: c.key })).body.code, 'auth.revoked');
  });

  it('a scope change', async () => {
    const c = await newCustomer(t, { scopes: [] });
    assert.equal((await twice(c.key)).body.permissions.read_calls, false);
    await t.services.keys.setScopes(c.customerId, c.keyId, ['read_calls']);
    assert.equal((await t.request('GET', WHOAMI, { key: c.key })).body.permissions.read_calls, true);
  });

  it('a rotation: the old value ends with its grace, read from the clock at use', async () => {
    const c = await newCustomer(t);
    assert.equal((await twice(c.key)).status, 200);
    const rotated = await t.services.keys.rotateKey(c.customerId, c.keyId);
    assert.equal((await t.request('GET', WHOAMI, { key: rotated.secret })).status, 200);
    assert.equal((await t.request('GET', WHOAMI, { key: c.key })).status, 200);
    t.clock.advance(60_000);
    assert.equal((await t.request('GET', WHOAMI, { key: c.key })).body.code, 'auth.invalid');
    assert.equal((await t.request('GET', WHOAMI, { key: rotated.secret })).status, 200);
  });

  it("a customer's outbound limits", async () => {
    const c = await newCustomer(t);
    await twice(c.key);
    await t.services.customers.setOutboundLimits(c.customerId, { countries: ['US'], maxDailyCapUsd: '20' });
    const p = await t.services.authenticator.authenticate([`Bearer ${c.key}`]);
    assert.deepEqual(isFailure(p) ? p : p.outboundLimits, { countries: ['US'], maxDailyCapUsd: '20.00' });
  });

  it("a customer's ceiling", async () => {
    const c = await newCustomer(t, { rateLimitPerMinute: 50, keyRateLimitPerMinute: 600 });
    assert.equal((await twice(c.key)).headers['x-ratelimit-limit'], '50');
    await t.services.customers.setRateLimit(c.customerId, 20);
    assert.equal((await t.request('GET', WHOAMI, { key: c.key })).headers['x-ratelimit-limit'], '20');
  });
});

describe('keys held in memory by another instance over the same PostgreSQL', {
  skip: url ? false : 'needs DATABASE_URL',
}, () => {
  let t: TestApp;
  let notifications: Notifications;
  let cache: KeyCache;
  let other: Authenticator;

  before(async () => {
    t = await startTestApp({ serverSecret: SECRET });
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(t.db);
    const schema = rows[0]?.schema ?? '';
    // Reconnecting is not part of these tests: once dropped, the connection stays down.
    notifications = postgresNotifications(
      () => new pg.Client({ connectionString: url, options: `-c search_path=${schema}` }),
      { retryMs: 3_600_000 },
    );
    cache = createKeyCache({ notifications, clock: t.clock });
    other = createAuthenticator({
      db: t.db,
      hasher: createKeyHasher(SECRET),
      clock: t.clock,
      logger: createLogger('silent'),
      defaultKeyRateLimit: 60,
      testMode: false,
      outboundDefaults: PRODUCTION_OUTBOUND_DEFAULTS,
      keyCache: cache,
    });
    const up = new Promise<void>((resolve) => notifications.listen('api_keys_changed', () => {}, resolve));
    await other.authenticate(['Bearer svc_live_unknown']);
    await up;
  });
  after(async () => {
    await other?.close();
    await notifications?.close();
    await t?.close();
  });

  const principal = async (key: string): Promise<Principal> => {
    const result = await other.authenticate([`Bearer ${key}`]);
    assert.ok(!isFailure(result), JSON.stringify(result));
    return result;
  };
  const failure = async (key: string) => {
    const result = await other.authenticate([`Bearer ${key}`]);
    return isFailure(result) ? result.code : 'accepted';
  };

  /** A new customer and key, once the other instance has heard of the key's creation. */
  const customer = async (options: Parameters<typeof newCustomer>[1]) => {
    const created = nextKeyChange(notifications);
    const c = await newCustomer(t, options);
    assert.equal(await created, c.keyId);
    return c;
  };

  it('holds a key it has read, and drops it when the change is heard', async () => {
    const c = await customer({ scopes: [] });
    await principal(c.key);
    const held = cache.size().known;
    assert.ok(held >= 1);
    const heard = nextKeyChange(notifications);
    await t.services.keys.setScopes(c.customerId, c.keyId, ['read_calls']);
    assert.equal(await heard, c.keyId);
    assert.equal(cache.size().known, held - 1);
    assert.deepEqual((await principal(c.key)).scopes, ['read_calls']);

    const revoked = nextKeyChange(notifications);
    await t.services.keys.revokeKey(c.customerId, c.keyId);
    await revoked;
    assert.equal(await failure(c.key), 'auth.revoked');
  });

  it("a rotation, a customer's ceiling and outbound limits changes are heard too", async () => {
    const c = await customer({ rateLimitPerMinute: 50 });
    assert.equal((await principal(c.key)).rateLimitPerMinute, 50);
    const ceiling = nextKeyChange(notifications);
    await t.services.customers.setRateLimit(c.customerId, 30);
    assert.equal(await ceiling, '');
    assert.equal((await principal(c.key)).rateLimitPerMinute, 30);

    const limits = nextKeyChange(notifications);
    await t.services.customers.setOutboundLimits(c.customerId, { countries: ['CA'] });
    assert.equal(await limits, '');
    assert.deepEqual((await principal(c.key)).outboundLimits, {
      countries: ['CA'],
      maxDailyCapUsd: '100.00',
    });

    const rotation = nextKeyChange(notifications);
    const rotated = await t.services.keys.rotateKey(c.customerId, c.keyId);
    await rotation;
    assert.equal((await principal(rotated.secret)).keyPrefix, rotated.key.prefix);
    assert.equal((await principal(c.key)).keyPrefix, rotated.key.prefix);
  });

  it('with its listening connection dropped, it reads every key from the database', async () => {
    const c = await customer({ scopes: [] });
    await principal(c.key);
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(t.db);
    const lost = new Promise<void>((resolve) => notifications.listen('api_keys_changed', () => {}, resolve));
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
        where query like ${`listen "${rows[0]?.schema}:%`} and pid <> pg_backend_pid()`.execute(t.db);
    await lost;
    assert.equal(notifications.connected(), false);
    assert.deepEqual(cache.size(), { known: 0, unknown: 0 });
    await principal(c.key);
    // A change nobody hears (as while the connection is down): only a read sees it.
    await sql`update api_keys set scopes = ${['read_calls']} where id = ${c.keyId}`.execute(t.db);
    assert.deepEqual((await principal(c.key)).scopes, ['read_calls']);
    await sql`update api_keys set revoked_at = now() where id = ${c.keyId}`.execute(t.db);
    assert.equal(await failure(c.key), 'auth.revoked');
    assert.deepEqual(cache.size(), { known: 0, unknown: 0 });
  });
});
