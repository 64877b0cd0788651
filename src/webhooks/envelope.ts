import { z } from 'zod';
import type { EventRow, EventType } from '../db/index.ts';
import { webhookTranscriptSchema } from '../transcripts/index.ts';

/**
 * The delivered body: the spec envelope (event, timestamp, data) plus our additive `id` and `sequence`
 * (per call), so receivers can de-duplicate at-least-once deliveries and order the events of one call, and
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

const envelope = <E extends EventType, D extends z.ZodType>(event: E, data: D, id: string) =>
  z
    .object({
      id: z.uuid().meta({ description: 'Event id, stable across retries: de-duplicate on it.' }),
      event: z.literal(event),
      timestamp: instant.meta({ description: 'When the event happened (ISO-8601 UTC).' }),
      sequence: z
        .number()
        .int()
        .meta({ description: '1, 2, 3… per call: order the events of one call by it.' }),
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
} satisfies Record<EventType, z.ZodType>;
