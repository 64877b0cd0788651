import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a webhook's `t=` may be from our clock, either way. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export type SignatureCheck = 'valid' | 'missing' | 'malformed' | 'stale' | 'mismatch';

/** A header of the right shape and a fresh `t`: what can be checked before the body is read. */
export type SignatureClaim = { t: string; digests: Buffer[] };

/**
 * Reads `ElevenLabs-Signature: t=<unix seconds>,v0=<hex HMAC-SHA256 of "t.<raw body>">` (one `v0` or several),
 * without the body: its absence, shape and freshness (`t` within `toleranceSeconds` of our clock, either way).
 */
export function readSignatureHeader(
  header: string | undefined,
  now: Date,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): SignatureClaim | Exclude<SignatureCheck, 'valid' | 'mismatch'> {
  if (!header) return 'missing';
  const parts = new Map<string, string[]>();
  for (const item of header.split(',')) {
    const eq = item.indexOf('=');
    if (eq <= 0) continue;
    const name = item.slice(0, eq).trim();
    parts.set(name, [...(parts.get(name) ?? []), item.slice(eq + 1).trim()]);
  }
  const t = parts.get('t')?.[0];
  const candidates = (parts.get('v0') ?? []).filter((v) => /^[0-9a-f]{64}$/i.test(v));
  if (!t || !/^\d{1,12}$/.test(t) || candidates.length === 0) return 'malformed';
  if (Math.abs(now.getTime() / 1000 - Number(t)) > toleranceSeconds) return 'stale';
  return { t, digests: candidates.map((v) => Buffer.from(v, 'hex')) };
}

/**
 * Whether one of the claimed digests is the HMAC of `t.<raw body>` over the bytes received, compared in constant
 * time. Not the SDK's `webhooks.constructEvent`: it compares digests with `!==` (not constant time), reads the wall
 * clock instead of ours, bounds only timestamps in the past (30 minutes), and older versions signed a
 * re-serialised parsed body rather than the raw bytes.
 */
export function signatureMatches(claim: SignatureClaim, rawBody: Buffer, secret: string): boolean {
  const expected = createHmac('sha256', secret).update(`${claim.t}.`).update(rawBody).digest();
  return claim.digests.some((digest) => timingSafeEqual(digest, expected));
}

/** The header ElevenLabs would send for `rawBody` at `at` (the fake provider and tests). */
export function signatureHeader(rawBody: string, secret: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  const v0 = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex');
  return `t=${t},v0=${v0}`;
}
