import type { Clock } from '../clock.ts';
import type { SecretBox } from '../crypto/index.ts';
import { isLiveCustomer } from '../customers/index.ts';
import type { Database } from '../db/index.ts';
import { EVENT_TYPES, type EventType } from '../db/index.ts';
import type { SendResult, WebhookSender } from '../delivery/index.ts';
import { notFound } from '../errors/index.ts';
import { newTimeOrderedUuid } from '../ids.ts';
import { deliveryHeaders } from './delivery-headers.ts';
import { envelopeOf } from './envelope.ts';
import { findLive } from './subscriptions.repository.ts';

/** The call id of every test event: no real call has it. */
export const TEST_CALL_ID = '00000000-0000-4000-8000-000000000000';
/** The message id of every test `sms.*` event: no real message has it. */
export const TEST_MESSAGE_ID = 'sms_000000000000000000000000';

const isEventType = (s: string): s is EventType => (EVENT_TYPES as readonly string[]).includes(s);

/** A realistic `data` for each event type (spec 6.4), marked `"test": true`. */
export function sampleData(type: EventType, at: Date): Record<string, unknown> {
  const ended = at.toISOString();
  const started = new Date(at.getTime() - 95_000).toISOString();
  const message = {
    test: true,
    message_id: TEST_MESSAGE_ID,
    assistant_id: '00000000-0000-4000-8000-000000000001',
  };
  if (type === 'sms.sent') {
    return {
      ...message,
      direction: 'outgoing',
      from: '+14155550100',
      to: '+14155550123',
      status: 'delivered',
      error_code: null,
      error_message: null,
      segments: 1,
      cost: 0.0079,
      external_id: 'booking-1234',
      metadata: { booking_id: 'b_1234' },
      queued_at: new Date(at.getTime() - 4_000).toISOString(),
      sent_at: new Date(at.getTime() - 3_000).toISOString(),
      completed_at: ended,
    };
  }
  if (type === 'sms.received') {
    return {
      ...message,
      direction: 'incoming',
      from: '+14155550123',
      to: '+14155550100',
      body: 'Yes, 3 pm works for me.',
      segments: 1,
      received_at: ended,
    };
  }
  const common = {
    test: true,
    call_id: TEST_CALL_ID,
    assistant_id: '00000000-0000-4000-8000-000000000001',
    duration_seconds: 95,
  };
  if (type === 'call.completed') {
    return {
      ...common,
      direction: 'incoming',
      from: '+14155550123',
      to: '+14155550100',
      cost: 0.12,
      status: 'completed',
      started_at: started,
      ended_at: ended,
      conversation_id: 'conv_test',
      disconnect_reason: 'caller_hangup',
    };
  }
  if (type === 'call.insight.received') {
    return {
      ...common,
      from: '+14155550123',
      to: '+14155550100',
      started_at: started,
      insights: [
        { name: 'sentiment', result: 'positive' },
        { name: 'appointment_booked', result: true },
      ],
    };
  }
  return {
    ...common,
    conversation_id: 'conv_test',
    language: 'en-US',
    transcript: {
      format: 'segments',
      segments: [
        { role: 'assistant', text: 'Hello, how can I help?', ts: started },
        { role: 'user', text: 'This is a test.', ts: ended },
      ],
      plain_text: 'Assistant: Hello, how can I help?\nCaller: This is a test.',
    },
    truncated: false,
  };
}

export type TestEventResult = SendResult & { eventId: string; event: EventType };

/**
 * Sends one signed sample event to a subscription now, exactly as the delivery worker signs (same headers,
 * current and previous secret), and records it in the delivery log as a one-attempt delivery. It is not
 * retried and does not count towards auto-disable, and it may be sent to a disabled subscription to check a
 * receiver before re-enabling it. The event is `call.completed` when subscribed, else the first subscribed type.
 */
export async function sendTestEvent(
  deps: { db: Database; clock: Clock; secretBox: SecretBox; sender: WebhookSender },
  customerId: string,
  subscriptionId: string,
): Promise<TestEventResult> {
  const { db, clock, secretBox, sender } = deps;
  const sub = await findLive(db, customerId, subscriptionId);
  if (!sub) throw notFound('Webhook subscription');
  const type = sub.events.includes('call.completed')
    ? 'call.completed'
    : (sub.events.find(isEventType) ?? 'call.completed');
  const now = clock.now();
  const livemode = await isLiveCustomer(db, customerId);
  const event = {
    id: newTimeOrderedUuid(),
    type,
    occurred_at: now,
    sequence: 0,
    livemode,
    data: sampleData(type, now),
  };
  const deliveryId = newTimeOrderedUuid();
  const body = JSON.stringify(envelopeOf(event));
  const headers = deliveryHeaders(sub, secretBox, {
    subscriptionId: sub.id,
    eventType: type,
    eventId: event.id,
    deliveryId,
    body,
    now,
  });
  const result = await sender.send(sub.url, headers, body);
  const at = clock.now();
  // Written only after the attempt, already finished, so no delivery worker can claim it.
  await db.transaction().execute(async (tx) => {
    await tx
      .insertInto('events')
      .values({ ...event, customer_id: customerId, call_id: null, data: JSON.stringify(event.data) })
      .execute();
    await tx
      .insertInto('webhook_deliveries')
      .values({
        id: deliveryId,
        event_id: event.id,
        subscription_id: sub.id,
        customer_id: customerId,
        status: result.ok ? 'delivered' : 'failed',
        attempts: 1,
        next_attempt_at: now,
        leased_until: null,
        last_status_code: result.statusCode,
        last_error: result.error?.slice(0, 500) ?? null,
        delivered_at: result.ok ? at : null,
        created_at: now,
      })
      .execute();
    await tx
      .insertInto('webhook_attempts')
      .values({
        delivery_id: deliveryId,
        subscription_id: sub.id,
        attempted_at: at,
        status_code: result.statusCode,
        latency_ms: result.latencyMs,
        error: result.error,
        response_excerpt: result.responseExcerpt ?? null,
      })
      .execute();
  });
  return { ...result, eventId: event.id, event: type };
}
