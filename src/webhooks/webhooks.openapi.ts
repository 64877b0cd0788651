import { envelopeOf, eventEnvelopeSchemas } from './envelope.ts';
import { EVENT_TYPES, type EventType } from './event-types.ts';
import { sampleData } from './test-event.ts';

/** What a delivery of each event looks like: the dashboard's test event, less its `test` mark, at a fixed time. */
export function payloadExample(event: EventType): Record<string, unknown> {
  const at = new Date('2026-11-21T10:02:15.000Z');
  const { test: _test, ...sample } = sampleData(event, at);
  // The ids of the Call and Message examples (calls.views.ts, sms.views.ts), so the reference tells of one each.
  const data = {
    ...sample,
    ...('call_id' in sample
      ? { call_id: '1d5a3c9e-8f0b-4e6a-9c2d-7b1e4f3a6c58' }
      : { message_id: 'sms_4f0c2a9e7b1d3c5a6e8f0b2d' }),
    assistant_id: '7c0e2b8a-3f4d-4b6e-8a1c-5d9f2e7b3a10',
    ...('conversation_id' in sample ? { conversation_id: 'conv_8f2a61c0' } : {}),
  };
  const id = {
    'call.completed': '6f1c2b9e-5d4a-4c3b-9a8f-7e6d5c4b3a21',
    'call.insight.received': '0c9d8e7f-6a5b-4c3d-9e2f-1a0b9c8d7e6f',
    'call.transcript.ready': '5e4d3c2b-1a09-4f8e-8d7c-6b5a49382716',
    'sms.received': '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
    'sms.sent': '3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a98',
  }[event];
  return envelopeOf({ id, type: event, occurred_at: at, sequence: 1, livemode: true, data });
}

const WHEN: Record<EventType, string> = {
  'call.completed':
    'After a call ends and post-processing (duration, cost, quality scoring, billing) is complete. ' +
    'Never carries `external_id`.',
  'call.insight.received':
    'When the AI insights of a call are processed; one group per call. `external_id` and `variables` only ' +
    'on calls placed through POST /outbound-calls.',
  'call.transcript.ready':
    'Once the full transcript is ready and stored, typically within 30 seconds of `call.completed` (retried ' +
    'with backoff for about 2 hours). Only while an active `call.transcript.ready` subscription exists.',
  'sms.received':
    "When someone texts one of an assistant's numbers. A message to a number no assistant has is not delivered. " +
    'A recipient replying STOP (or START) is delivered too, and also opts them out (back in).',
  'sms.sent':
    'When a message sent with POST /sms/send reaches its final status with the carrier: `delivered`, ' +
    '`undelivered` or `failed` (with the carrier’s error code and a sentence). Once per message, however many ' +
    'times the carrier reports it.',
};

const SIGNING = `Verify before trusting the body: \`X-Svc-Signature-256\` is the hex HMAC-SHA256 of
\`<X-Svc-Timestamp>.<raw body>\` keyed with the subscription secret (\`whsec_…\`); compare in constant time and
reject timestamps more than 5 minutes from your clock. The same delivery is also signed as Standard Webhooks
(\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`): any Standard Webhooks or Svix library verifies it
with the subscription secret (for a secret still in base64url, from before, see the webhooks guide). Delivery is
at-least-once: de-duplicate on \`id\`; order the events of one call by \`sequence\`. Answer 2xx within 10 s;
anything else is retried (10 s … 24 h), and 10 consecutive failures disable the subscription. \`410 Gone\`
unsubscribes at once.`;

const headerParam = (
  name: string,
  description: string,
  schema: Record<string, unknown>,
  required = true,
) => ({
  name,
  in: 'header',
  required,
  description,
  schema,
});

/** The OpenAPI 3.1 `webhooks` object: one POST per event type, with the envelope and the X-Svc-* headers. */
export function webhookOperations(): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_TYPES.map((event) => {
      const id = eventEnvelopeSchemas[event].meta()?.id;
      return [
        event,
        {
          post: {
            operationId: `webhook_${event.replaceAll('.', '_')}`,
            summary: event,
            description: `${WHEN[event]}\n\n${SIGNING}`,
            tags: ['Webhook events'],
            parameters: [
              headerParam('X-Svc-Event', 'The event name (same as `event`).', {
                type: 'string',
                enum: [event],
              }),
              headerParam('X-Svc-Timestamp', 'Unix seconds of this attempt: 10 digits.', {
                type: 'string',
                pattern: '^[0-9]{10}$',
              }),
              headerParam(
                'X-Svc-Signature-256',
                'Hex HMAC-SHA256 of `<timestamp>.<raw body>` with the secret.',
                {
                  type: 'string',
                  pattern: '^[0-9a-f]{64}$',
                },
              ),
              headerParam(
                'X-Svc-Signature-256-Previous',
                'During a secret rotation (24 h): the same, with the previous secret.',
                { type: 'string', pattern: '^[0-9a-f]{64}$' },
                false,
              ),
              headerParam('X-Svc-Event-Id', 'The event id (same as `id`).', {
                type: 'string',
                format: 'uuid',
              }),
              headerParam('X-Svc-Delivery', 'This delivery; a redelivery gets a new one.', {
                type: 'string',
                format: 'uuid',
              }),
              headerParam(
                'X-Svc-Subscription-Id',
                'The subscription this delivery is for (`sub_…`), on every delivery, retry, redelivery and test ' +
                  'event: with several subscriptions to one URL, verify with the secret of this one. Not signed: ' +
                  'a changed id picks a secret the signature does not match.',
                { type: 'string', pattern: '^sub_[0-9a-f]{24}$' },
              ),
              headerParam(
                'webhook-id',
                'Standard Webhooks: the event id (same as `id`), the same at every retry and redelivery.',
                { type: 'string', format: 'uuid' },
              ),
              headerParam(
                'webhook-timestamp',
                'Standard Webhooks: Unix seconds of this attempt, the same value as `X-Svc-Timestamp`.',
                { type: 'string', pattern: '^[0-9]{10}$' },
              ),
              headerParam(
                'webhook-signature',
                'Standard Webhooks: `v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>`, ' +
                  'keyed with the base64-decoded part of the secret after `whsec_`; during a secret rotation (24 h) ' +
                  'a second `v1,…` for the previous secret follows, after a space.',
                { type: 'string', pattern: '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)?$' },
              ),
            ],
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: { $ref: `#/components/schemas/${id}` },
                  example: payloadExample(event),
                },
              },
            },
            responses: {
              '2XX': { description: 'Received. Any other answer, or none within 10 s, is retried.' },
              '410': { description: 'Gone: disables the subscription at once.' },
            },
          },
        },
      ];
    }),
  );
}
