import { createHmac, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/**
 * `whsec_` + 32 random bytes in standard base64 (with its `=`): one string that keys the spec's scheme as it
 * is and that every Standard Webhooks library decodes. Secrets made before were base64url (see
 * standardWebhookKey).
 */
export const newWebhookSecret = (): string => `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

/** Spec 6.2: hex HMAC-SHA256 over `<X-Svc-Timestamp>.<raw body>`, keyed with the subscription secret. */
export function signPayload(secret: string, unixSeconds: number, body: string): string {
  return createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
}

/**
 * The Standard Webhooks key of a secret: the bytes its part after `whsec_` encodes. Node's base64 decoder
 * reads both alphabets, so a secret made before standard base64 (base64url, `-` and `_`) keys the same
 * bytes its standard-base64 spelling does. A KeyObject, not the Buffer: Node 24 brand-checks a Buffer key by
 * catching two thrown errors, so an HMAC keyed with a Buffer costs about 28 µs against 4 µs
 * (docs/performance.md, "Keys handed to node:crypto").
 */
export function standardWebhookKey(secret: string): KeyObject {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return createSecretKey(Buffer.from(encoded, 'base64'));
}

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<raw body>`. */
export function signStandardWebhook(key: KeyObject, id: string, unixSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${unixSeconds}.${body}`).digest('base64')}`;
}

/** X-Svc-Timestamp: Unix seconds as a 10-digit string. */
export const unixSeconds = (at: Date): number => Math.floor(at.getTime() / 1000);
