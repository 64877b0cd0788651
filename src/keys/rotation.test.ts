import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { displayPrefix } from './key-format.ts';

const WHOAMI = '/api/v1/auth/whoami';
const GRACE_SECONDS = 600;

describe('key rotation is one transaction', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ rotationGraceSeconds: GRACE_SECONDS });
  });
  after(() => t.close());

  const snapshot = async (keyId: string) => ({
    key: await t.db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirstOrThrow(),
    secrets: await t.db
      .selectFrom('api_key_secrets')
      .selectAll()
      .where('key_id', '=', keyId)
      .orderBy('created_at')
      .execute(),
  });

  it('a rotation that fails at its last write leaves the key exactly as it was', async () => {
    const c = await newCustomer(t);
    const before = await snapshot(c.keyId);
    // The display-prefix update is the rotation's last write: make it fail for this key only.
    await sql
      .raw(`create function fail_prefix_write() returns trigger language plpgsql as $$
        begin raise exception 'injected failure'; end $$`)
      .execute(t.db);
    await sql
      .raw(`create trigger fail_prefix_write before update of prefix on api_keys for each row
        when (new.id = '${c.keyId}') execute function fail_prefix_write()`)
      .execute(t.db);
    try {
      await assert.rejects(t.services.keys.rotateKey(c.customerId, c.keyId), /injected failure/);
    } finally {
      await sql.raw('drop trigger fail_prefix_write on api_keys').execute(t.db);
      await sql.raw('drop function fail_prefix_write()').execute(t.db);
    }
    assert.deepEqual(await snapshot(c.keyId), before, 'no new value, no grace period started');
    t.clock.advance((GRACE_SECONDS + 1) * 1000);
    assert.equal((await t.request('GET', WHOAMI, { key: c.key })).status, 200, 'the old value has no end');
  });

  it('rotations racing each other leave one current value, and the prefix is that value’s', async () => {
    const c = await newCustomer(t);
    const results = await Promise.all(
      Array.from({ length: 4 }, () => t.services.keys.rotateKey(c.customerId, c.keyId)),
    );
    const { key, secrets } = await snapshot(c.keyId);
    assert.equal(secrets.filter((s) => s.valid_until === null).length, 1, 'exactly one value without an end');
    t.clock.advance((GRACE_SECONDS + 1) * 1000);
    const working = [];
    for (const r of results) {
      if ((await t.request('GET', WHOAMI, { key: r.secret })).status === 200) working.push(r.secret);
    }
    assert.equal(working.length, 1, 'after the grace period only the newest value works');
    assert.equal(key.prefix, displayPrefix(working[0] ?? ''));
    assert.equal((await t.request('GET', WHOAMI, { key: c.key })).status, 401);
  });
});
