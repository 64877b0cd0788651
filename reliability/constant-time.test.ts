import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { after, before, describe, it, mock } from 'node:test';
import { asForm, field, sameToken } from '../src/dashboard/forms.ts';
import { signPayload } from '../src/delivery/signature.ts';
import { createKeyHasher, sameDigest } from '../src/keys/key-hash.ts';
import { verifyCallback } from '../src/outbound/callback-signing.ts';
import { createSigner } from '../src/signer.ts';
import { figure } from './lib/collector.ts';

const SECTION = 'Security: constant-time comparison';

/**
 * Every comparison of a secret with a guess must go through crypto.timingSafeEqual, whose running time does
 * not depend on where the inputs differ. Timing a comparison on a shared machine proves nothing, so these
 * tests watch the function instead: node:crypto's binding is replaced by a spy (and the ESM named exports
 * re-synced), then each secret check the service makes is run with equal, almost-equal and different input.
 */
describe('secret checks compare in constant time', () => {
  const calls: { a: Buffer; b: Buffer }[] = [];
  const original = crypto.timingSafeEqual;
  before(() => {
    mock.method(crypto, 'timingSafeEqual', (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      calls.push({
        a: Buffer.from(a.buffer, a.byteOffset, a.byteLength),
        b: Buffer.from(b.buffer, b.byteOffset, b.byteLength),
      });
      return original(a, b);
    });
    syncBuiltinESMExports();
  });
  after(() => {
    mock.restoreAll();
    syncBuiltinESMExports();
  });

  /** Runs `check` and returns how many constant-time comparisons it made, and its answer. */
  function watch<T>(check: () => T): { compared: number; result: T } {
    const before = calls.length;
    const result = check();
    return { compared: calls.length - before, result };
  }

  const report = (name: string, ok: boolean) =>
    figure({ section: SECTION, name, value: ok ? 'timingSafeEqual' : 'NOT constant-time', ok });

  it('key lookup: the stored digest is compared with timingSafeEqual, for a match and near misses', () => {
    const hasher = createKeyHasher('k'.repeat(40));
    const digest = hasher.hash('svc_live_example');
    const nearMiss = `${digest.slice(0, -1)}${digest.endsWith('0') ? '1' : '0'}`;
    const firstByteOff = `${digest.startsWith('0') ? '1' : '0'}${digest.slice(1)}`;
    const results = [digest, nearMiss, firstByteOff].map((guess) => watch(() => sameDigest(digest, guess)));
    assert.deepEqual(
      results.map((r) => r.result),
      [true, false, false],
    );
    assert.ok(
      results.every((r) => r.compared === 1),
      'every comparison, early or late difference, is timingSafeEqual',
    );
    // A guess of another length never reaches a byte-wise comparison: its length is public (hex SHA-256).
    assert.equal(watch(() => sameDigest(digest, digest.slice(0, 10))).result, false);
    report(
      'API key digest (sameDigest)',
      results.every((r) => r.compared === 1),
    );
  });

  it('callback and webhook signatures: verification compares with timingSafeEqual', () => {
    const secret = 'whsec_example-secret';
    const now = new Date('2026-11-21T10:00:00Z');
    const ts = Math.floor(now.getTime() / 1000);
    const body = '{"event":"call.ended"}';
    const good = signPayload(secret, ts, body);
    const bad = `${good.slice(0, -1)}${good.endsWith('0') ? '1' : '0'}`;
    const verified = watch(() =>
      verifyCallback(secret, { timestamp: String(ts), signature: good }, body, now),
    );
    const refused = watch(() => verifyCallback(secret, { timestamp: String(ts), signature: bad }, body, now));
    assert.equal(verified.result, true);
    assert.equal(refused.result, false);
    assert.equal(verified.compared, 1);
    assert.equal(refused.compared, 1);
    report('signature verification (verifyCallback)', verified.compared === 1 && refused.compared === 1);
  });

  it('signed cursors and other server MACs: verify compares with timingSafeEqual', () => {
    const signer = createSigner('s'.repeat(40));
    const mac = signer.sign('cursor', 'payload');
    const bad = `${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
    const ok = watch(() => signer.verify('cursor', 'payload', mac));
    const no = watch(() => signer.verify('cursor', 'payload', bad));
    assert.equal(ok.result, true);
    assert.equal(no.result, false);
    assert.equal(ok.compared + no.compared, 2);
    report('cursor MAC (signer.verify)', ok.compared === 1 && no.compared === 1);
  });

  it('dashboard CSRF tokens: compared with timingSafeEqual', () => {
    const token = 'a'.repeat(43);
    const form = asForm({ _csrf: `${'a'.repeat(42)}b` });
    const ok = watch(() => sameToken(token, token));
    const no = watch(() => sameToken(token, field(form, '_csrf')));
    assert.equal(ok.result, true);
    assert.equal(no.result, false);
    assert.equal(ok.compared + no.compared, 2);
    report('dashboard CSRF token (sameToken)', ok.compared === 1 && no.compared === 1);
  });

  it('the spy is real: a plain === comparison would not be seen', () => {
    const seen = watch(() => 'abc' === String('abc'));
    assert.equal(seen.compared, 0);
  });
});
