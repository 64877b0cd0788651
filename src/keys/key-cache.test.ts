import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../clock.ts';
import type { Channel, Notifications } from '../db/notifications.ts';
import { createKeyCache, type KeyCacheLimits } from './key-cache.ts';
import type { KeyRecord } from './keys.repository.ts';

/** Notifications the test drives: deliver a payload, lose the connection, bring it back. */
function fakeNotifications() {
  const handlers: { handler: (payload: string) => void; onGap: (() => void) | undefined }[] = [];
  let up = true;
  const notifications: Notifications = {
    listen(_channel: Channel, handler, onGap) {
      const entry = { handler, onGap };
      handlers.push(entry);
      return () => handlers.splice(handlers.indexOf(entry), 1);
    },
    connected: () => up,
    close: async () => {},
  };
  return {
    notifications,
    deliver: (payload: string) => {
      for (const h of handlers) h.handler(payload);
    },
    lose: () => {
      up = false;
      for (const h of handlers) h.onGap?.();
    },
    restore: () => {
      up = true;
      for (const h of handlers) h.onGap?.();
    },
  };
}

const record = (id: string, customerId = 'c1'): KeyRecord => ({
  hash: `hash-${id}`,
  valid_until: null,
  id,
  name: 'k',
  prefix: 'svc_live_abc',
  mode: 'live',
  test_customer_id: null,
  scopes: [],
  expires_at: null,
  revoked_at: null,
  last_used_at: null,
  daily_spend_cap_usd: '100.00',
  allowed_countries: ['US'],
  key_rate_limit_per_minute: null,
  customer_id: customerId,
  customer_name: 'C',
  rate_limit_per_minute: 60,
  outbound_countries: null,
  outbound_max_daily_cap_usd: null,
});

const LIMITS: KeyCacheLimits = { maxKnown: 3, knownTtlMs: 60_000, maxUnknown: 2, unknownTtlMs: 10_000 };

/** A database stand-in that counts reads: `rows` maps a hash to its record. */
function setup(limits = LIMITS) {
  const clock = new ManualClock();
  const n = fakeNotifications();
  const cache = createKeyCache({ notifications: n.notifications, clock, limits });
  const rows = new Map<string, KeyRecord>();
  let reads = 0;
  const read = async (hash: string) => {
    reads++;
    return rows.get(hash);
  };
  const lookup = (hash: string) => cache.lookup(hash, () => read(hash));
  return { clock, n, cache, rows, lookup, reads: () => reads };
}

describe('key cache', () => {
  it('a known value is read once, then served from memory until its time is up', async () => {
    const s = setup();
    s.rows.set('h1', record('k1'));
    assert.equal((await s.lookup('h1'))?.id, 'k1');
    assert.equal((await s.lookup('h1'))?.id, 'k1');
    assert.equal(s.reads(), 1);
    s.clock.advance(LIMITS.knownTtlMs - 1);
    await s.lookup('h1');
    assert.equal(s.reads(), 1);
    s.clock.advance(1);
    await s.lookup('h1');
    assert.equal(s.reads(), 2);
  });

  it('an unknown value is remembered for its time only, and at most maxUnknown of them', async () => {
    const s = setup();
    assert.equal(await s.lookup('x1'), undefined);
    assert.equal(await s.lookup('x1'), undefined);
    assert.equal(s.reads(), 1);
    s.clock.advance(LIMITS.unknownTtlMs);
    await s.lookup('x1');
    assert.equal(s.reads(), 2);
    await s.lookup('x2');
    await s.lookup('x3');
    assert.deepEqual(s.cache.size(), { known: 0, unknown: LIMITS.maxUnknown });
    // x1 was the oldest: it went first.
    await s.lookup('x1');
    assert.equal(s.reads(), 5);
  });

  it('known values are bounded in count: the oldest read goes first', async () => {
    const s = setup();
    for (const i of [1, 2, 3, 4]) s.rows.set(`h${i}`, record(`k${i}`));
    for (const i of [1, 2, 3, 4]) await s.lookup(`h${i}`);
    assert.deepEqual(s.cache.size(), { known: LIMITS.maxKnown, unknown: 0 });
    await s.lookup('h4');
    assert.equal(s.reads(), 4);
    await s.lookup('h1');
    assert.equal(s.reads(), 5);
  });

  const changes = [
    { how: 'a notification naming the key', apply: (s: ReturnType<typeof setup>) => s.n.deliver('k1') },
    { how: 'this instance naming the key', apply: (s: ReturnType<typeof setup>) => s.cache.changed('k1') },
  ];
  for (const { how, apply } of changes) {
    it(`${how} drops that key's values (every one of them) and every unknown value, nothing else`, async () => {
      const s = setup();
      s.rows.set('h1', record('k1'));
      s.rows.set('h1-old', record('k1'));
      s.rows.set('h2', record('k2'));
      for (const h of ['h1', 'h1-old', 'h2', 'x']) await s.lookup(h);
      assert.equal(s.reads(), 4);
      s.rows.set('h1', { ...record('k1'), revoked_at: new Date() });
      apply(s);
      assert.deepEqual(s.cache.size(), { known: 1, unknown: 0 });
      assert.ok((await s.lookup('h1'))?.revoked_at);
      await s.lookup('h2');
      assert.equal(s.reads(), 5);
    });
  }

  const everything = [
    {
      how: 'an empty notification (a customer ceiling)',
      apply: (s: ReturnType<typeof setup>) => s.n.deliver(''),
    },
    {
      how: 'this instance changing every key',
      apply: (s: ReturnType<typeof setup>) => s.cache.changed(null),
    },
    { how: 'a gap in the notifications', apply: (s: ReturnType<typeof setup>) => s.n.restore() },
  ];
  for (const { how, apply } of everything) {
    it(`${how} drops everything`, async () => {
      const s = setup();
      s.rows.set('h1', record('k1'));
      s.rows.set('h2', record('k2', 'c2'));
      for (const h of ['h1', 'h2', 'x']) await s.lookup(h);
      apply(s);
      assert.deepEqual(s.cache.size(), { known: 0, unknown: 0 });
    });
  }

  it('while the notifications are down every lookup reads the database and nothing is kept', async () => {
    const s = setup();
    s.rows.set('h1', record('k1'));
    await s.lookup('h1');
    s.n.lose();
    assert.deepEqual(s.cache.size(), { known: 0, unknown: 0 });
    await s.lookup('h1');
    await s.lookup('h1');
    await s.lookup('x');
    await s.lookup('x');
    assert.equal(s.reads(), 5);
    assert.deepEqual(s.cache.size(), { known: 0, unknown: 0 });
    s.n.restore();
    await s.lookup('h1');
    await s.lookup('h1');
    assert.equal(s.reads(), 6);
  });

  it('a read that a change overtook is answered but not kept (it may be the value from before)', async () => {
    const s = setup();
    s.rows.set('h1', record('k1'));
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = s.cache.lookup('h1', async () => {
      const row = s.rows.get('h1');
      await gate;
      return row;
    });
    s.n.deliver('k1');
    release();
    assert.equal((await slow)?.id, 'k1');
    assert.deepEqual(s.cache.size(), { known: 0, unknown: 0 });
  });
});

describe('the lists the held records name', () => {
  it('are one frozen copy per distinct list, set in place on the record the caller keeps', async () => {
    const cache = createKeyCache({
      notifications: fakeNotifications().notifications,
      clock: new ManualClock(),
    });
    const a = { ...record('k1'), scopes: ['read_calls', 'outbound_calls'], allowed_countries: ['US', 'CA'] };
    const b = { ...record('k2'), scopes: ['read_calls', 'outbound_calls'], allowed_countries: ['US', 'CA'] };
    const c = { ...record('k3'), scopes: ['read_calls'], allowed_countries: ['US', 'CA'] };
    assert.equal(await cache.lookup('v1', async () => a), a);
    await cache.lookup('v2', async () => b);
    await cache.lookup('v3', async () => c);
    assert.equal(a.scopes, b.scopes);
    assert.equal(a.allowed_countries, c.allowed_countries);
    assert.notEqual(a.scopes, c.scopes);
    assert.deepEqual(c.scopes, ['read_calls']);
    assert.equal(a.outbound_countries, null);
    assert.ok(Object.isFrozen(a.scopes));
    assert.throws(() => a.scopes.push('manage_webhooks'), TypeError);
    assert.deepEqual(b.scopes, ['read_calls', 'outbound_calls']);
  });
});
