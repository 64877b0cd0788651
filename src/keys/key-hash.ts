import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * API keys carry ~178 random bits, so a slow password hash buys nothing; a keyed fast hash
 * (HMAC-SHA256 with the server secret) makes the stored value useless without that secret
 * and keeps authentication to one indexed lookup.
 */
export type KeyHasher = { hash(key: string): string };

export function createKeyHasher(serverSecret: string): KeyHasher {
  return { hash: (key) => createHmac('sha256', serverSecret).update(key).digest('hex') };
}

/** Constant-time equality of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}
