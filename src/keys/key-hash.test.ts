import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createKeyHasher, sameDigest } from './key-hash.ts';

describe('key hashing', () => {
  it('is keyed: the same key under two server secrets gives unrelated digests', () => {
    const a = createKeyHasher('secret-one-0123456789abcdef0123456789');
    const b = createKeyHasher('secret-two-0123456789abcdef0123456789');
    assert.equal(a.hash('svc_live_x'), a.hash('svc_live_x'));
    assert.notEqual(a.hash('svc_live_x'), b.hash('svc_live_x'));
    assert.match(a.hash('svc_live_x'), /^[0-9a-f]{64}$/);
    assert.ok(!a.hash('svc_live_x').includes('svc_live'));
  });

  it('compares digests in constant time and refuses empty or different-length input', () => {
    const h = createKeyHasher('k'.repeat(32)).hash('svc_live_y');
    assert.equal(sameDigest(h, h), true);
    assert.equal(sameDigest(h, `${h.slice(0, -1)}0`), h.endsWith('0'));
    assert.equal(sameDigest(h, h.slice(0, 10)), false);
    assert.equal(sameDigest('', ''), false);
  });
});
