import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './types.ts';

export type WebhookFailure =
  | 'missing_timestamp'
  | 'invalid_timestamp'
  | 'timestamp_out_of_tolerance'
  | 'missing_signature'
  | 'invalid_signature_format'
  | 'signature_mismatch'
  | 'invalid_body'
  | 'event_mismatch'
  | 'unknown_subscription';

/** Why a delivery was refused. Answer it with 400 (or 401); never process the body. */
export class WebhookVerificationError extends Error {
  readonly reason: WebhookFailure;
  constructor(reason: WebhookFailure, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

/** Node's `req.headers` (also Express and Fastify), any plain object, or a fetch `Headers`. */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Record<string, string | string[] | undefined>;

/**
 * Each subscription's secret by its id (`sub_…`), for a URL that several subscriptions post to: every delivery
 * names its subscription in `X-Svc-Subscription-Id`. A list of secrets for one id while you rotate yours.
 */
export type SecretsBySubscription = Readonly<Record<string, string | readonly string[]>>;

export type VerifyOptions = {
  /** Largest accepted distance between X-Svc-Timestamp and now (default 300 s, spec 6.3). */
  toleranceSeconds?: number;
  /** Now, in milliseconds (tests). */
  now?: () => number;
};

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') return headers.get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

const SIGNATURE_RE = /^[0-9a-f]{64}$/;

const isList = (v: unknown): v is readonly string[] => Array.isArray(v);
const listOf = (v: string | readonly string[]): string[] => (isList(v) ? [...v] : [v]);

/**
 * The secrets to check a delivery with: those given, or the ones of the subscription it names. The header is not
 * signed, and needs no signature: a changed id only picks another of your secrets, which the signature fails.
 */
function secretsFor(
  secret: string | readonly string[] | SecretsBySubscription,
  headers: WebhookHeaders,
): string[] {
  if (typeof secret === 'string' || isList(secret)) return listOf(secret);
  const id = header(headers, 'x-svc-subscription-id');
  if (id === undefined) {
    throw new WebhookVerificationError('unknown_subscription', 'X-Svc-Subscription-Id is missing.');
  }
  const chosen = Object.hasOwn(secret, id) ? secret[id] : undefined;
  if (chosen === undefined) {
    throw new WebhookVerificationError(
      'unknown_subscription',
      'X-Svc-Subscription-Id names a subscription you hold no secret for.',
    );
  }
  return listOf(chosen);
}

/**
 * Checks a delivery and returns its event: X-Svc-Timestamp within the tolerance, and X-Svc-Signature-256
 * (or, during a secret rotation, X-Svc-Signature-256-Previous) equal, in constant time, to the hex
 * HMAC-SHA256 of `<timestamp>.<raw body>` under `secret`. Pass several secrets while you rotate yours, or
 * each subscription's secret by its id when several subscriptions post to one URL (`SecretsBySubscription`:
 * the delivery's `X-Svc-Subscription-Id` picks the secret; a subscription not in it is `unknown_subscription`).
 * `rawBody` must be the bytes as received: parse JSON only after this succeeds.
 * Throws WebhookVerificationError with a `reason`.
 */
export function verifyWebhook(
  secret: string | readonly string[] | SecretsBySubscription,
  headers: WebhookHeaders,
  rawBody: string | Uint8Array,
  options: VerifyOptions = {},
): WebhookEvent {
  const secrets = secretsFor(secret, headers).filter((s) => s.length > 0);
  if (secrets.length === 0) throw new TypeError('verifyWebhook needs the subscription secret (whsec_…)');
  const tolerance = options.toleranceSeconds ?? 300;

  const timestamp = header(headers, 'x-svc-timestamp');
  if (timestamp === undefined)
    throw new WebhookVerificationError('missing_timestamp', 'X-Svc-Timestamp is missing.');
  if (!/^\d{10}$/.test(timestamp)) {
    throw new WebhookVerificationError('invalid_timestamp', 'X-Svc-Timestamp must be 10-digit Unix seconds.');
  }
  const skew = Math.abs((options.now?.() ?? Date.now()) / 1000 - Number(timestamp));
  if (skew > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `X-Svc-Timestamp is ${Math.round(skew)} s from this clock (tolerance ${tolerance} s): a replay, or a clock to fix.`,
    );
  }

  const signatures = [header(headers, 'x-svc-signature-256'), header(headers, 'x-svc-signature-256-previous')]
    .filter((s): s is string => s !== undefined)
    .map((s) => s.trim().toLowerCase());
  if (signatures.length === 0) {
    throw new WebhookVerificationError('missing_signature', 'X-Svc-Signature-256 is missing.');
  }
  if (!signatures.every((s) => SIGNATURE_RE.test(s))) {
    throw new WebhookVerificationError(
      'invalid_signature_format',
      'The signature must be 64 hex characters.',
    );
  }
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const given = signatures.map((s) => Buffer.from(s, 'hex'));
  let matched = false;
  for (const key of secrets) {
    const expected = createHmac('sha256', key).update(`${timestamp}.`).update(body).digest();
    // Every comparison runs: no early exit that would time which header or secret matched.
    for (const g of given) matched = timingSafeEqual(expected, g) || matched;
  }
  if (!matched) {
    throw new WebhookVerificationError(
      'signature_mismatch',
      'The signature does not match: wrong secret, or the body was changed (verify the raw bytes, before parsing).',
    );
  }

  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_body', 'The body is not JSON.');
  }
  const name = typeof event === 'object' && event !== null && 'event' in event ? event.event : undefined;
  const announced = header(headers, 'x-svc-event');
  if (typeof name !== 'string' || (announced !== undefined && announced !== name)) {
    throw new WebhookVerificationError('event_mismatch', 'X-Svc-Event does not match the body’s `event`.');
  }
  return event as WebhookEvent;
}
