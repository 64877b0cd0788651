import type { SecretBox } from '../crypto/index.ts';
import type { EventType, SubscriptionRow } from '../db/index.ts';
import { signPayload, signStandardWebhook, standardWebhookKey, unixSeconds } from '../delivery/index.ts';

type Signing = Pick<
  SubscriptionRow,
  'secret_encrypted' | 'previous_secret_encrypted' | 'previous_secret_expires_at'
>;

/**
 * The headers of one delivery attempt, signed over `body` with the subscription secret, and with the previous
 * secret too while a rotation's grace period runs: spec 6.2 plus our ids, and the same attempt again as
 * Standard Webhooks (`webhook-id` is the event id, so it is stable across retries; one timestamp for both).
 *
 * `x-svc-subscription-id` tells a receiver with several subscriptions to one URL which secret to verify with.
 * It is outside the signed string (spec 6.2 fixes that string), and needs no signature: a changed id only
 * picks another of the receiver's secrets, which the signature then fails.
 */
export function deliveryHeaders(
  sub: Signing,
  secretBox: SecretBox,
  attempt: {
    subscriptionId: string;
    eventType: EventType;
    eventId: string;
    deliveryId: string;
    body: string;
    now: Date;
  },
): Record<string, string> {
  const timestamp = unixSeconds(attempt.now);
  const secret = secretBox.open(sub.secret_encrypted);
  const previous =
    sub.previous_secret_encrypted &&
    sub.previous_secret_expires_at &&
    sub.previous_secret_expires_at > attempt.now
      ? secretBox.open(sub.previous_secret_encrypted)
      : null;
  const signing = previous === null ? [secret] : [secret, previous];
  return {
    'content-type': 'application/json',
    'user-agent': 'VoiceCallsAPI-Webhooks/1.0',
    'x-svc-event': attempt.eventType,
    'x-svc-event-id': attempt.eventId,
    'x-svc-delivery': attempt.deliveryId,
    'x-svc-subscription-id': attempt.subscriptionId,
    'x-svc-timestamp': String(timestamp),
    'x-svc-signature-256': signPayload(secret, timestamp, attempt.body),
    ...(previous === null
      ? {}
      : { 'x-svc-signature-256-previous': signPayload(previous, timestamp, attempt.body) }),
    'webhook-id': attempt.eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signing
      .map((s) => signStandardWebhook(standardWebhookKey(s), attempt.eventId, timestamp, attempt.body))
      .join(' '),
  };
}
