import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { KeyMode } from '../db/index.ts';

/**
 * Key layout, after GitHub's token format: `svc_live_` (or `svc_test_`) + 30 random base62 characters (~178 bits)
 * + 6 base62 characters of CRC32 over everything before them. The checksum lets a leaked key be
 * recognised offline (secret scanning) and lets us refuse typos without touching the database.
 */
export const LIVE_PREFIX = 'svc_live_';
export const TEST_PREFIX = 'svc_test_';
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
export const KEY_LENGTH = LIVE_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;
/** The first 12 characters: safe to store, show and log. */
export const DISPLAY_PREFIX_LENGTH = 12;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_RE = /^svc_(live|test)_[0-9A-Za-z]{36}$/;

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: rejecting bytes above it keeps every character equally likely.
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

function checksum(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** `body` (a key without its last 6 characters) completed with its checksum. */
export const withChecksum = (body: string): string => body + checksum(body);

export function generateKey(mode: KeyMode = 'live'): string {
  return withChecksum((mode === 'test' ? TEST_PREFIX : LIVE_PREFIX) + randomBase62(RANDOM_LENGTH));
}

export type ParsedToken =
  | { kind: 'key'; mode: KeyMode; prefix: string }
  | { kind: 'malformed'; mode: KeyMode | null; prefix: string | null };

export const displayPrefix = (key: string): string => key.slice(0, DISPLAY_PREFIX_LENGTH);

export function parseToken(token: string): ParsedToken {
  const mode = token.startsWith(LIVE_PREFIX) ? 'live' : token.startsWith(TEST_PREFIX) ? 'test' : null;
  if (!KEY_RE.test(token)) return { kind: 'malformed', mode, prefix: mode ? displayPrefix(token) : null };
  const body = token.slice(0, -CHECKSUM_LENGTH);
  if (checksum(body) !== token.slice(-CHECKSUM_LENGTH))
    return { kind: 'malformed', mode, prefix: displayPrefix(token) };
  return { kind: 'key', mode: mode ?? 'live', prefix: displayPrefix(token) };
}

/** True when a string looks like one of our keys, whatever its validity: used to spot keys in URLs. */
export const looksLikeKey = (s: string): boolean => s.includes(LIVE_PREFIX) || s.includes(TEST_PREFIX);
