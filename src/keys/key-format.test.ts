import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DISPLAY_PREFIX_LENGTH, displayPrefix, generateKey, KEY_LENGTH, parseToken } from './key-format.ts';

describe('key format', () => {
  it('generates svc_live_ keys of fixed length that parse as live', () => {
    const key = generateKey();
    assert.match(key, /^svc_live_[0-9A-Za-z]{36}$/);
    assert.equal(key.length, KEY_LENGTH);
    assert.deepEqual(parseToken(key), { kind: 'key', mode: 'live', prefix: key.slice(0, 12) });
  });

  it('generates svc_test_ keys for test mode, told apart by their prefix', () => {
    const key = generateKey('test');
    assert.match(key, /^svc_test_[0-9A-Za-z]{36}$/);
    assert.equal(key.length, KEY_LENGTH);
    assert.deepEqual(parseToken(key), { kind: 'key', mode: 'test', prefix: key.slice(0, 12) });
  });

  it('never repeats and uses the whole base62 alphabet (entropy sanity check)', () => {
    const keys = Array.from({ length: 2000 }, generateKey);
    assert.equal(new Set(keys).size, keys.length);
    const chars = new Set(keys.flatMap((k) => [...k.slice(9, 39)]));
    assert.equal(chars.size, 62);
  });

  it('detects a single changed character through the checksum', () => {
    const key = generateKey();
    const i = 20;
    const swapped = key.slice(0, i) + (key[i] === 'a' ? 'b' : 'a') + key.slice(i + 1);
    assert.equal(parseToken(swapped).kind, 'malformed');
  });

  it('refuses wrong shapes, saying which mode a malformed key claims', () => {
    const test = parseToken('svc_test_abcdefabcdefabcdefabcdefabcdefabcdef');
    assert.deepEqual([test.kind, test.mode], ['malformed', 'test'], 'a bad checksum');
    for (const bad of [
      '',
      'svc_live_',
      'svc_live_short',
      'sk_live_abc',
      `${generateKey()}x`,
      `${generateKey('test')}x`,
      'svc_live_!!!!',
      'svc_other_abcdefabcdefabcdefabcdefabcdefabcdef',
    ]) {
      assert.equal(parseToken(bad).kind, 'malformed', bad);
    }
  });

  it('shows only the first 12 characters as the prefix', () => {
    const key = generateKey();
    assert.equal(DISPLAY_PREFIX_LENGTH, 12);
    assert.equal(displayPrefix(key), key.slice(0, 12));
    assert.ok(displayPrefix(key).startsWith('svc_live_'));
  });
});
