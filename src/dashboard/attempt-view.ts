import type { SecretBox } from '../crypto/index.ts';
import type { EventType } from '../db/index.ts';
import { deliveryHeaders, envelopeOf } from '../webhooks/index.ts';

/** What a signature header shows in the delivery log: never a value that could be replayed or studied. */
export const REDACTED = '[redacted]';

/** A box that opens nothing: the headers are built for display, and their signatures are replaced anyway. */
const NO_SECRETS: SecretBox = { seal: () => '', open: () => 'not-the-secret' };

type SentAttempt = {
  attempted_at: Date;
  latency_ms: number;
  delivery_id: string;
  subscription_id: string;
  event_id: string;
  event_type: string;
  event_occurred_at: Date;
  event_sequence: number;
  event_data: unknown;
  event_livemode: boolean;
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: Date | null;
};

/** The body the attempt sent (deliveries send the event's envelope, the same bytes every attempt), indented. */
export const attemptBody = (a: SentAttempt): string =>
  JSON.stringify(
    envelopeOf({
      id: a.event_id,
      type: a.event_type as EventType,
      occurred_at: a.event_occurred_at,
      sequence: a.event_sequence,
      data: a.event_data,
      livemode: a.event_livemode,
    }),
    null,
    2,
  );

/**
 * The headers the attempt sent, rebuilt by the function that built them (so the list never drifts from the
 * sender), at the attempt's start: every signature redacted. Headers are not stored; the values other than the
 * signatures follow from the delivery, the event and the time.
 */
export function attemptHeaders(a: SentAttempt): [string, string][] {
  const startedAt = new Date(a.attempted_at.getTime() - a.latency_ms);
  const headers = deliveryHeaders(
    {
      secret_encrypted: 'sealed',
      previous_secret_encrypted: a.previous_secret_encrypted,
      previous_secret_expires_at: a.previous_secret_expires_at,
    },
    NO_SECRETS,
    {
      subscriptionId: a.subscription_id,
      eventType: a.event_type as EventType,
      eventId: a.event_id,
      deliveryId: a.delivery_id,
      body: JSON.stringify(JSON.parse(attemptBody(a))),
      now: startedAt,
    },
  );
  return Object.entries(headers).map(([name, value]) => [name, /signature/i.test(name) ? REDACTED : value]);
}
