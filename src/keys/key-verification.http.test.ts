import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../config.ts';
import { newCustomer, startTestApp, type TestApp, type TestResponse } from '../testing/test-app.ts';
import { testDatabase } from '../testing/test-database.ts';
import { DISPLAY_PREFIX_LENGTH, generateKey, parseToken, withChecksum } from './key-format.ts';

const WHOAMI = '/api/v1/auth/whoami';
/** The production defaults of the failure windows (AUTH_FAILURES_PER_MINUTE_PER_IP, …_PER_PREFIX). */
const DEFAULTS = loadConfig({});

/** A token with `key`'s first 12 characters (its stored, shown prefix) and a valid checksum, but another secret. */
function forgedFrom(key: string): string {
  const forged = withChecksum(
    key.slice(0, DISPLAY_PREFIX_LENGTH) + generateKey().slice(DISPLAY_PREFIX_LENGTH, -6),
  );
  assert.notEqual(forged, key);
  assert.equal(parseToken(forged).kind, 'key', 'the forged token passes the offline checks');
  return forged;
}

function assertRefused(res: TestResponse, victimId: string) {
  assert.equal(res.status, 401, res.text);
  assert.equal(res.body.code, 'auth.invalid');
  assert.equal(res.body.detail, 'The API key is not recognised.');
  assert.ok(!res.text.includes(victimId), 'nothing of the victim in the answer');
}

describe('key verification: the whole secret, not its prefix (issue 34)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({
      authFailuresPerMinutePerIp: DEFAULTS.authFailuresPerMinutePerIp,
      authFailuresPerMinutePerPrefix: DEFAULTS.authFailuresPerMinutePerPrefix,
    });
  });
  after(() => t.close());

  it("a forged token with a real key's prefix is refused before the key is used and while it is held in memory", async () => {
    const victim = await newCustomer(t, { name: 'Victim before' });
    const forged = forgedFrom(victim.key);
    const from = { localAddress: '127.0.5.1' };
    assertRefused(await t.request('GET', WHOAMI, { key: forged, ...from }), victim.customerId);

    const real = await t.request('GET', WHOAMI, { key: victim.key, ...from });
    assert.equal(real.status, 200, 'a forged attempt before it does not make the real key refused');
    assert.equal(real.body.customer_id, victim.customerId);
    // Held in memory once the cache listens for changes (on PostgreSQL its connection comes up after the first
    // lookup) and has read the key while nothing else changed: renamed behind its back (no change announced), the
    // key's answer then still shows the old name.
    const rename = (name: string) =>
      t.db.updateTable('customers').set({ name }).where('id', '=', victim.customerId).execute();
    const { notifications } = await testDatabase();
    const deadline = Date.now() + 10_000;
    while (!notifications.connected() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    let shown = '';
    for (let i = 0; i < 10 && shown !== 'Victim before'; i++) {
      await rename('Victim before');
      await t.request('GET', WHOAMI, { key: victim.key, ...from });
      await rename('Victim renamed');
      shown = (await t.request('GET', WHOAMI, { key: victim.key, ...from })).body.customer_name;
    }
    assert.equal(shown, 'Victim before', 'the real key is held in memory');

    for (const token of [forged, forgedFrom(victim.key), forged]) {
      assertRefused(await t.request('GET', WHOAMI, { key: token, ...from }), victim.customerId);
    }
    const after = await t.request('GET', WHOAMI, { key: victim.key, ...from });
    assert.equal(after.status, 200, 'and forged attempts while it is held do not make it refused');
    assert.equal(after.body.customer_id, victim.customerId);
  });

  it('forged tokens fill only the prefix failure window: each is auth.invalid up to the limit, then throttled; the real key is never refused', async () => {
    const victim = await newCustomer(t);
    const limit = DEFAULTS.authFailuresPerMinutePerPrefix;
    const from = { localAddress: '127.0.5.2' };
    assert.equal((await t.request('GET', WHOAMI, { key: victim.key, ...from })).status, 200);
    for (let i = 0; i < limit; i++) {
      assertRefused(
        await t.request('GET', WHOAMI, { key: forgedFrom(victim.key), ...from }),
        victim.customerId,
      );
      const real = await t.request('GET', WHOAMI, { key: victim.key, ...from });
      assert.equal(real.status, 200, `after ${i + 1} forged attempts`);
    }
    const throttled = await t.request('GET', WHOAMI, { key: forgedFrom(victim.key), ...from });
    assert.equal(throttled.status, 429, throttled.text);
    assert.equal(throttled.body.code, 'auth.throttled');
    assert.match(throttled.body.detail, /key prefix/);
    const real = await t.request('GET', WHOAMI, { key: victim.key, ...from });
    assert.equal(real.status, 200, 'a full prefix window does not refuse the valid key that has the prefix');
    assert.equal(real.body.customer_id, victim.customerId);
  });
});
