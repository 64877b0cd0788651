import { timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/index.ts';
import { signPayload } from '../delivery/index.ts';
import type { Signer } from '../signer.ts';
import * as repo from './callbacks.repository.ts';

/** Same scheme as webhooks (spec 6.2): hex HMAC-SHA256 of `<unix seconds>.<raw body>`. */
export const signCallback = signPayload;

/** Receiver side, as documented for customers: signature and 5-minute timestamp tolerance. */
export function verifyCallback(
  secret: string,
  headers: { timestamp: string; signature: string },
  body: string,
  now: Date,
): boolean {
  if (!/^\d{10}$/.test(headers.timestamp)) return false;
  const ts = Number(headers.timestamp);
  if (Math.abs(now.getTime() / 1000 - ts) > 300) return false;
  const expected = Buffer.from(signCallback(secret, ts, body), 'hex');
  const given = Buffer.from(headers.signature, 'hex');
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * Per-customer callback signing secrets, `whsec_…`. Derived from the server secret and a version
 * number, so no secret is ever stored; rotating bumps the version and takes effect at once.
 */
export function createCallbackSecrets(deps: { db: Database; signer: Signer; clock: Clock }) {
  const derive = (customerId: string, version: number) =>
    `whsec_${deps.signer.sign('callback-secret', `${customerId}:${version}`)}`;
  return {
    async secretFor(customerId: string): Promise<{ secret: string; version: number }> {
      const version = await repo.findCallbackSecretVersion(deps.db, customerId);
      return { secret: derive(customerId, version), version };
    },
    async rotate(customerId: string): Promise<{ secret: string; version: number }> {
      const version = await repo.bumpCallbackSecretVersion(deps.db, customerId, deps.clock.now());
      return { secret: derive(customerId, version), version };
    },
  };
}

export type CallbackSecrets = ReturnType<typeof createCallbackSecrets>;
