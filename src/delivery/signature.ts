import { createHmac, randomBytes } from 'node:crypto';

/** `whsec_` + 32 random bytes, base64url. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

/** Spec 6.2: hex HMAC-SHA256 over `<X-Svc-Timestamp>.<raw body>`, keyed with the subscription secret. */
export function signPayload(secret: string, unixSeconds: number, body: string): string {
  return createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
}

/** X-Svc-Timestamp: Unix seconds as a 10-digit string. */
export const unixSeconds = (at: Date): number => Math.floor(at.getTime() / 1000);
