import type { SecretBox } from '../crypto/secret-box.ts';
import type { EventType } from '../db/tables/events.table.ts';
import type { SubscriptionRow } from '../db/tables/webhooks.table.ts';
import { signPayload, unixSeconds } from '../delivery/signature.ts';

type Signing = Pick<
  SubscriptionRow,
  'secret_encrypted' | 'previous_secret_encrypted' | 'previous_secret_expires_at'
>;

/**
 * The headers of one delivery attempt (spec 6.2 plus our ids), signed over `body` with the subscription
 * secret, and with the previous secret too while a rotation's grace period runs.
 */
export function deliveryHeaders(
  sub: Signing,
  secretBox: SecretBox,
  attempt: { eventType: EventType; eventId: string; deliveryId: string; body: string; now: Date },
): Record<string, string> {
  const timestamp = unixSeconds(attempt.now);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'VoiceCallsAPI-Webhooks/1.0',
    'x-svc-event': attempt.eventType,
    'x-svc-event-id': attempt.eventId,
    'x-svc-delivery': attempt.deliveryId,
    'x-svc-timestamp': String(timestamp),
    'x-svc-signature-256': signPayload(secretBox.open(sub.secret_encrypted), timestamp, attempt.body),
  };
  if (
    sub.previous_secret_encrypted &&
    sub.previous_secret_expires_at &&
    sub.previous_secret_expires_at > attempt.now
  ) {
    headers['x-svc-signature-256-previous'] = signPayload(
      secretBox.open(sub.previous_secret_encrypted),
      timestamp,
      attempt.body,
    );
  }
  return headers;
}
