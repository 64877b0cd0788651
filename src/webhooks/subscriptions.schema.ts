import { z } from 'zod';
import { sameShape } from '../http/index.ts';
import { EVENT_TYPES } from './event-types.ts';
import type { SubscriptionView } from './subscription-actions.ts';
import type { WebhookEventsService } from './webhook-events.service.ts';

const instant = z.string().meta({ format: 'date-time' });
const eventNames = z.array(z.string()).meta({
  description: `Subscribed event names: ${EVENT_TYPES.join(', ')}.`,
  examples: [['call.completed']],
});

/** A subscription as every answer shows it; only the answers that make a secret add `secret`. */
const SUBSCRIPTION_EXAMPLE = {
  id: 'sub_0123456789abcdef01234567',
  url: 'https://example.com/hooks',
  events: ['call.completed', 'call.transcript.ready'],
  description: 'CRM',
  is_active: true,
  created_at: '2026-11-21T10:00:00.000Z',
  consecutive_failures: 0,
  disabled_reason: null,
  livemode: true,
};
const SECRET_EXAMPLE = 'whsec_Q2hvb3NlIGEgbG9uZyByYW5kb20gc2VjcmV0IGhlcmU=';

const subscriptionFields = {
  id: z.string().meta({ description: 'Prefixed `sub_`.', examples: ['sub_0123456789abcdef01234567'] }),
  url: z.url(),
  events: eventNames,
  description: z.string(),
  is_active: z
    .boolean()
    .meta({ description: 'False once auto-disabled (10 consecutive failures or 410 Gone).' }),
  created_at: instant,
  consecutive_failures: z
    .number()
    .int()
    .meta({
      description:
        'The current failure streak: failed deliveries since the last success, a failure starting within 5 s of ' +
        'the last counted one folded into it (one outage counts once). 10 disables the subscription.',
    }),
  disabled_reason: z.string().nullable(),
  livemode: z.boolean().meta({
    description: 'False for a subscription made with a `svc_test_` key: it receives test events only.',
  }),
};

/** Spec 2.8; `secret` only in the 201 of a new subscription. */
export const subscriptionSchema = z
  .object({
    ...subscriptionFields,
    secret: z
      .string()
      .optional()
      .meta({
        description:
          'Prefixed `whsec_`, then 32 random bytes in standard base64: a Standard Webhooks secret too. ' +
          'Returned only on creation (201), never again.',
      }),
  })
  .meta({
    id: 'WebhookSubscription',
    examples: [{ ...SUBSCRIPTION_EXAMPLE, secret: SECRET_EXAMPLE }],
  });
sameShape<SubscriptionView, z.output<typeof subscriptionSchema>>();

export const subscriptionsPageSchema = z
  .object({
    data: z.array(subscriptionSchema),
    has_more: z.boolean().meta({ description: 'True when `page + 1` has more.' }),
  })
  .meta({ id: 'WebhookSubscriptionsPage', examples: [{ data: [SUBSCRIPTION_EXAMPLE], has_more: false }] });

export const rotatedSecretSchema = z
  .object({
    ...subscriptionFields,
    secret: z.string().meta({ description: 'The new secret, shown this once.' }),
    previous_secret_expires_at: instant.meta({
      description:
        'Until then deliveries also carry X-Svc-Signature-256-Previous, signed with the old secret.',
    }),
  })
  .meta({
    id: 'RotatedWebhookSecret',
    examples: [
      {
        ...SUBSCRIPTION_EXAMPLE,
        secret: 'whsec_TmV3IHNlY3JldCwgc2hvd24gb25jZSBvbmx5IGhlcmUh',
        previous_secret_expires_at: '2026-11-22T10:00:00.000Z',
      },
    ],
  });

export const deletedSchema = z
  .object({ id: z.string(), deleted: z.literal(true) })
  .meta({ id: 'Deleted', examples: [{ id: SUBSCRIPTION_EXAMPLE.id, deleted: true }] });

export const challengeSchema = z
  .object({ challenge: z.string().meta({ description: 'The `challenge` query parameter, echoed.' }) })
  .meta({ id: 'Challenge', examples: [{ challenge: 'f3b1c2d4e5' }] });

export const scheduledSchema = z
  .object({ scheduled: z.number().int().meta({ description: 'Deliveries queued.' }) })
  .meta({ id: 'RedeliveryScheduled', examples: [{ scheduled: 1 }] });

/** GET /webhook-events 200: the envelope as delivered, plus its deliveries and every attempt. */
export const webhookEventsPageSchema = z
  .object({
    data: z.array(
      z.object({
        id: z.uuid().meta({ description: 'Event id; same as X-Svc-Event-Id.' }),
        event: z.enum(EVENT_TYPES),
        timestamp: instant,
        sequence: z.number().int(),
        livemode: z.boolean().meta({ description: 'False for an event of test mode.' }),
        data: z
          .record(z.string(), z.unknown())
          .meta({ description: 'As delivered; see the `webhooks` section.' }),
        call_id: z.uuid().nullable().meta({ description: 'The call of a `call.*` event; null for `sms.*`.' }),
        message_id: z
          .string()
          .nullable()
          .meta({ description: 'The text message of an `sms.*` event; null for `call.*`.' }),
        deliveries: z.array(
          z.object({
            id: z.uuid(),
            subscription_id: z.string(),
            status: z.enum(['pending', 'delivered', 'failed']),
            attempts: z.number().int(),
            next_attempt_at: instant.nullable(),
            delivered_at: instant.nullable(),
            attempt_log: z.array(
              z.object({
                at: instant,
                status_code: z.number().int().nullable(),
                latency_ms: z.number().int(),
                error: z.string().nullable(),
              }),
            ),
          }),
        ),
      }),
    ),
    next_cursor: z.string().nullable(),
  })
  .meta({
    id: 'WebhookEventsPage',
    examples: [
      {
        data: [
          {
            id: '6f1c2b9e-5d4a-4c3b-9a8f-7e6d5c4b3a21',
            event: 'call.completed',
            timestamp: '2026-11-21T10:02:15.000Z',
            sequence: 1,
            livemode: true,
            data: {
              call_id: '1d5a3c9e-8f0b-4e6a-9c2d-7b1e4f3a6c58',
              status: 'completed',
              duration_seconds: 126,
            },
            call_id: '1d5a3c9e-8f0b-4e6a-9c2d-7b1e4f3a6c58',
            message_id: null,
            deliveries: [
              {
                id: '2b7d4e1a-9c3f-4a8b-b6d5-0e1f2a3b4c5d',
                subscription_id: SUBSCRIPTION_EXAMPLE.id,
                status: 'delivered',
                attempts: 2,
                next_attempt_at: null,
                delivered_at: '2026-11-21T10:02:26.000Z',
                attempt_log: [
                  { at: '2026-11-21T10:02:15.000Z', status_code: 503, latency_ms: 84, error: 'HTTP 503' },
                  { at: '2026-11-21T10:02:26.000Z', status_code: 200, latency_ms: 61, error: null },
                ],
              },
            ],
          },
        ],
        next_cursor: null,
      },
    ],
  });
type ListedEvent = Awaited<ReturnType<WebhookEventsService['list']>>['data'][number];
// `data` is stored as `unknown` (JSON); every event's data is an object.
sameShape<
  Omit<ListedEvent, 'data'>,
  Omit<z.output<typeof webhookEventsPageSchema>['data'][number], 'data'>
>();
