import type { Clock } from '../clock.ts';
import type { SecretBox } from '../crypto/index.ts';
import type { SendResult, WebhookSender } from '../delivery/index.ts';
import { nextAttemptDelayMs } from '../delivery/index.ts';
import type { AttemptOutcome } from './attempts.repository.ts';
import type { ClaimedDelivery } from './deliveries.repository.ts';
import { deliveryHeaders } from './delivery-headers.ts';
import { envelopeOf } from './envelope.ts';

/** Opens each sealed secret once: a claimed batch holds many deliveries to the same few subscriptions. */
export function openingOnce(box: SecretBox): SecretBox {
  const opened = new Map<string, string>();
  return {
    seal: box.seal,
    open(sealed) {
      const plain = opened.get(sealed) ?? box.open(sealed);
      opened.set(sealed, plain);
      return plain;
    },
  };
}

/**
 * Signs and POSTs one claimed delivery and says what comes of it: delivered, retried later on the schedule,
 * or given up (after the last retry, or at once on 410 Gone).
 */
export async function sendAttempt(
  d: ClaimedDelivery,
  deps: { sender: WebhookSender; secretBox: SecretBox; clock: Clock; random?: (() => number) | undefined },
): Promise<AttemptOutcome> {
  const body = JSON.stringify(
    envelopeOf({
      id: d.event_id,
      type: d.event_type,
      occurred_at: d.event_occurred_at,
      sequence: d.event_sequence,
      data: d.event_data,
      livemode: d.event_livemode,
    }),
  );
  const startedAt = deps.clock.now();
  const headers = signedHeaders(d, deps, body);
  // A secret that no longer decrypts (the server secret changed) is a failed attempt like any other:
  // it is retried, counted, and disables the subscription at the limit instead of looping forever.
  const result: SendResult = headers
    ? await deps.sender.send(d.url, headers, body)
    : {
        ok: false,
        statusCode: null,
        error: 'signing secret could not be decrypted',
        latencyMs: 0,
        responseExcerpt: null,
      };
  const at = deps.clock.now();
  const delivered = result.ok && result.statusCode !== null;
  const delay = delivered ? null : nextAttemptDelayMs(d.attempts, deps.random);
  return {
    deliveryId: d.id,
    subscriptionId: d.subscription_id,
    startedAt,
    at,
    statusCode: result.statusCode,
    latencyMs: result.latencyMs,
    error: result.error,
    responseExcerpt: result.responseExcerpt ?? null,
    status: delivered ? 'delivered' : delay === null || result.statusCode === 410 ? 'failed' : 'pending',
    nextAttemptAt: delay === null ? d.next_attempt_at : new Date(at.getTime() + delay),
  };
}

function signedHeaders(
  d: ClaimedDelivery,
  deps: { secretBox: SecretBox; clock: Clock },
  body: string,
): Record<string, string> | null {
  try {
    return deliveryHeaders(d, deps.secretBox, {
      subscriptionId: d.subscription_id,
      eventType: d.event_type,
      eventId: d.event_id,
      deliveryId: d.id,
      body,
      now: deps.clock.now(),
    });
  } catch {
    return null;
  }
}
