import { z } from 'zod';
import type { EventRow, EventType } from '../db/index.ts';
import { webhookTranscriptSchema } from '../transcripts/index.ts';

/**
 * The delivered body: the spec envelope (event, timestamp, data) plus our additive `id` and `sequence`
 * (per call; 1 for a text message's event), so receivers can de-duplicate at-least-once deliveries and order the events of one call, and
 * `livemode` (false for test mode).
 */
export function envelopeOf(
  event: Pick<EventRow, 'id' | 'type' | 'occurred_at' | 'sequence' | 'data' | 'livemode'>,
) {
  return {
    id: event.id,
    event: event.type,
    timestamp: event.occurred_at.toISOString(),
    sequence: event.sequence,
    livemode: event.livemode,
    data: event.data,
  };
}

const instant = z.string().meta({ format: 'date-time' });
const e164 = z.string().meta({ examples: ['+14155550123'] });
const testFlag = z
  .boolean()
  .optional()
  .meta({ description: 'Only on test events sent from the dashboard (then `call_id` is all zeros).' });

/** `call.completed` data (spec 6.4): after post-processing; never carries external_id. */
export const callCompletedDataSchema = z
  .object({
    call_id: z.uuid(),
    direction: z
      .enum(['incoming', 'outgoing'])
      .meta({ description: 'Webhook spelling of inbound/outbound.' }),
    from: e164,
    to: e164,
    duration_seconds: z.number().int(),
    cost: z.number().meta({ description: 'USD.' }),
    status: z.string().meta({ description: 'Final call status, e.g. completed, no_answer, busy, failed.' }),
    started_at: instant,
    ended_at: instant.nullable(),
    conversation_id: z.string().nullable().meta({ description: 'Null when the call was never answered.' }),
    assistant_id: z.uuid(),
    disconnect_reason: z.string().nullable(),
    test: testFlag,
  })
  .meta({ id: 'CallCompletedData' });

/** `call.insight.received` data (spec 6.4): one group per call. */
export const callInsightReceivedDataSchema = z
  .object({
    call_id: z.uuid(),
    assistant_id: z.uuid(),
    from: e164,
    to: e164,
    duration_seconds: z.number().int().meta({ description: 'Final duration.' }),
    started_at: instant,
    external_id: z.string().nullable().optional().meta({
      description: 'Only on API-placed outbound calls: the reference given to POST /outbound-calls.',
    }),
    variables: z
      .record(z.string(), z.unknown())
      .nullable()
      .optional()
      .meta({ description: 'Only on API-placed outbound calls, with external_id.' }),
    insights: z
      .array(z.object({ name: z.string(), result: z.unknown() }))
      .meta({ description: '`result` type varies by `name`: branch on name.' }),
    test: testFlag,
  })
  .meta({ id: 'CallInsightReceivedData' });

/** `call.transcript.ready` data (spec 6.4): the webhook form of the transcript. */
export const callTranscriptReadyDataSchema = z
  .object({
    call_id: z.uuid(),
    conversation_id: z.string(),
    assistant_id: z.uuid(),
    duration_seconds: z.number().int(),
    language: z.string(),
    transcript: webhookTranscriptSchema,
    truncated: z
      .boolean()
      .meta({ description: 'True when segments were dropped to keep the body under 64 KiB.' }),
    test: testFlag,
  })
  .meta({ id: 'CallTranscriptReadyData' });

const messageId = z.string().meta({ examples: ['sms_4f0c2a9e7b1d3c5a6e8f0b2d'] });
const testMessageFlag = z
  .boolean()
  .optional()
  .meta({ description: 'Only on test events sent from the dashboard (then `message_id` is all zeros).' });

/** `sms.sent` data: a message sent through POST /sms/send reached its final status with the carrier. */
export const smsSentDataSchema = z
  .object({
    message_id: messageId,
    direction: z.literal('outgoing').meta({ description: 'Webhook spelling of outbound, as for calls.' }),
    assistant_id: z.uuid(),
    from: e164,
    to: e164,
    status: z.enum(['delivered', 'undelivered', 'failed']).meta({
      description:
        '`delivered`: the carrier confirmed it; `undelivered`: the carrier could not deliver it; `failed`: it was never sent.',
    }),
    error_code: z.string().nullable().meta({
      description:
        "The carrier's error code for undelivered and failed (Twilio's numbering: 30003–30008, …).",
    }),
    error_message: z.string().nullable().meta({ description: 'One sentence on error_code.' }),
    segments: z.number().int().meta({ description: 'Segments billed (a concatenated message is several).' }),
    cost: z.number().meta({ description: 'USD; 0 when it failed.' }),
    external_id: z
      .string()
      .nullable()
      .meta({ description: 'The reference given to POST /sms/send, null when none was.' }),
    metadata: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: 'The metadata given to POST /sms/send, null when none was.' }),
    queued_at: instant.meta({ description: 'When POST /sms/send accepted it.' }),
    sent_at: instant.nullable().meta({ description: 'When the carrier took it; null when it never did.' }),
    completed_at: instant.meta({ description: 'When the final status was reported.' }),
    test: testMessageFlag,
  })
  .meta({ id: 'SmsSentData' });

/** `sms.received` data: someone texted one of an assistant's numbers. */
export const smsReceivedDataSchema = z
  .object({
    message_id: messageId,
    direction: z.literal('incoming').meta({ description: 'Webhook spelling of inbound, as for calls.' }),
    assistant_id: z.uuid(),
    from: e164,
    to: e164,
    body: z.string(),
    segments: z.number().int(),
    received_at: instant,
    test: testMessageFlag,
  })
  .meta({ id: 'SmsReceivedData' });

const envelope = <E extends EventType, D extends z.ZodType>(event: E, data: D, id: string) =>
  z
    .object({
      id: z.uuid().meta({ description: 'Event id, stable across retries: de-duplicate on it.' }),
      event: z.literal(event),
      timestamp: instant.meta({ description: 'When the event happened (ISO-8601 UTC).' }),
      sequence: z.number().int().meta({
        description:
          "1, 2, 3… per call: order the events of one call by it (a text message's one event is 1).",
      }),
      livemode: z
        .boolean()
        .meta({ description: "False for an event of test mode (a `svc_test_` key's call or subscription)." }),
      data,
    })
    .meta({ id });

/** The delivered body of each event, by name. */
export const eventEnvelopeSchemas = {
  'call.completed': envelope('call.completed', callCompletedDataSchema, 'CallCompletedEvent'),
  'call.insight.received': envelope(
    'call.insight.received',
    callInsightReceivedDataSchema,
    'CallInsightReceivedEvent',
  ),
  'call.transcript.ready': envelope(
    'call.transcript.ready',
    callTranscriptReadyDataSchema,
    'CallTranscriptReadyEvent',
  ),
  'sms.received': envelope('sms.received', smsReceivedDataSchema, 'SmsReceivedEvent'),
  'sms.sent': envelope('sms.sent', smsSentDataSchema, 'SmsSentEvent'),
} satisfies Record<EventType, z.ZodType>;
