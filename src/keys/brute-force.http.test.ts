import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { generateKey } from './key-format.ts';

const WHOAMI = '/api/v1/auth/whoami';

describe('brute-force throttling (spec 5.7)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ authFailuresPerMinutePerIp: 10, authFailuresPerMinutePerPrefix: 5 });
  });
  after(() => t.close());

  it('a flood of wrong keys from one IP is throttled; a valid key from another IP keeps working', async () => {
    const good = await newCustomer(t);
    const attacker = '127.0.0.3';
    const codes: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await t.request('GET', WHOAMI, { key: generateKey(), localAddress: attacker });
      codes.push(res.body.code);
    }
    assert.deepEqual(codes.slice(0, 10), Array(10).fill('auth.invalid'));
    assert.deepEqual(codes.slice(10), ['auth.throttled', 'auth.throttled']);
    const recorded = await t.db
      .selectFrom('auth_failures')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('ip', '=', attacker)
      .executeTakeFirstOrThrow();
    assert.equal(Number(recorded.n), 10, 'throttled attempts are refused without a write');

    const blocked = await t.request('GET', WHOAMI, { key: good.key, localAddress: attacker });
    assert.equal(blocked.status, 429, 'the throttled address is refused before any lookup');
    assert.equal(blocked.body.code, 'auth.throttled');
    assert.match(blocked.headers['retry-after'] ?? '', /^[1-9]\d*$/);
    assert.equal(blocked.headers['x-ratelimit-remaining'], '0');

    const elsewhere = await t.request('GET', WHOAMI, { key: good.key, localAddress: '127.0.0.4' });
    assert.equal(elsewhere.status, 200);

    t.clock.advance(60_000);
    const later = await t.request('GET', WHOAMI, { key: good.key, localAddress: attacker });
    assert.equal(later.status, 200, 'the window slides: the address recovers a minute later');
  });

  it('repeated failures against one key prefix are throttled, but a valid key with that prefix is not', async () => {
    const victim = await newCustomer(t);
    const prefix = victim.key.slice(0, 12);
    const codes: string[] = [];
    // Different source addresses, so only the prefix window fills.
    for (let i = 0; i < 7; i++) {
      const guess = `${prefix}${'x'.repeat(33)}`;
      const res = await t.request('GET', WHOAMI, { key: guess, localAddress: `127.0.1.${i + 1}` });
      codes.push(res.body.code);
    }
    assert.deepEqual(codes, [...Array(5).fill('auth.invalid'), 'auth.throttled', 'auth.throttled']);
    const own = await t.request('GET', WHOAMI, { key: victim.key, localAddress: '127.0.1.9' });
    assert.equal(own.status, 200);
  });

  it('unauthenticated responses report the per-IP failure window in their rate headers', async () => {
    const ip = '127.0.2.1';
    const first = await t.request('GET', WHOAMI, { localAddress: ip });
    assert.equal(first.headers['x-ratelimit-limit'], '10');
    assert.equal(first.headers['x-ratelimit-remaining'], '9');
    const second = await t.request('GET', WHOAMI, { localAddress: ip });
    assert.equal(second.headers['x-ratelimit-remaining'], '8');
  });
});
