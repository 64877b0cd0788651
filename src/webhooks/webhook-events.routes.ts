import type { FastifyInstance } from 'fastify';
import { type ZodType, z } from 'zod';
import { apiResponses, POST_CODES } from '../http/index.ts';
import { requirePrincipal } from '../keys/index.ts';
import {
  enumParam,
  idParams,
  intParam,
  MAX_CURSOR_LENGTH,
  parseInstant,
  TIMESTAMP_HINT,
  tokenParam,
  uuidParam,
} from '../pagination/index.ts';
import { EVENT_TYPES } from './event-types.ts';
import { scheduledSchema, webhookEventsPageSchema } from './subscriptions.schema.ts';
import {
  type EventQuery,
  REDELIVERY_WINDOW_DAYS,
  type WebhookEventsService,
} from './webhook-events.service.ts';

const SUBSCRIPTION_ID = z
  .string()
  .regex(/^sub_[0-9a-f]{24}$/, 'Must be a subscription id such as sub_0123456789abcdef01234567.')
  .meta({ examples: ['sub_0123456789abcdef01234567'] });
const tags = ['Webhook events'];

const listQuery = z.strictObject({
  type: enumParam(EVENT_TYPES),
  call_id: uuidParam(),
  limit: intParam(1, 100),
  cursor: tokenParam(MAX_CURSOR_LENGTH),
  page: intParam(0, 1_000_000),
});

/** The events API (beyond the spec): what was sent, its attempts, and redelivery for catching up. */
export function registerWebhookEventRoutes(app: FastifyInstance, service: WebhookEventsService): void {
  app.get(
    '/webhook-events',
    {
      config: { scope: 'manage_webhooks' },
      schema: {
        operationId: 'listWebhookEvents',
        summary: 'List webhook events and their deliveries',
        description:
          'Newest first, each event as delivered with its deliveries and every attempt (time, status code, ' +
          'latency, error), kept 30 days. Cursor (`next_cursor`) or `page` pagination.',
        tags,
        querystring: listQuery,
        response: apiResponses(
          { 200: { description: 'One page of events.', schema: webhookEventsPageSchema } },
          ['perm.denied', 'input.invalid'],
        ),
      },
    },
    async (request) => service.list(requirePrincipal(request).customerId, request.query as EventQuery),
  );

  const queued = apiResponses({ 202: { description: 'Queued.', schema: scheduledSchema } }, [
    ...POST_CODES,
    'perm.denied',
    'input.invalid',
    'resource.not_found',
  ]);
  /** The two redelivery routes differ only in what they select; both answer 202 with `scheduled`. */
  const redeliverRoute = <B>(
    path: string,
    schema: { operationId: string; summary: string; description: string; params: ZodType; body: ZodType },
    run: (customerId: string, id: string, body: B) => Promise<{ scheduled: number }>,
  ) =>
    app.post(
      path,
      { config: { scope: 'manage_webhooks' }, schema: { ...schema, tags, response: queued } },
      async (request, reply) => {
        const { id } = request.params as { id: string };
        return reply.code(202).send(await run(requirePrincipal(request).customerId, id, request.body as B));
      },
    );

  redeliverRoute<{ subscription_id?: string }>(
    '/webhook-events/:id/redeliver',
    {
      operationId: 'redeliverWebhookEvent',
      summary: 'Redeliver one event',
      description:
        'To one subscription, or to every live subscription of its type when none is named. A subscription ' +
        'that still has this event pending (not yet delivered, or waiting for a retry) does not get a second ' +
        'copy: `scheduled` counts only the new deliveries.',
      params: idParams,
      body: z.strictObject({ subscription_id: SUBSCRIPTION_ID.optional() }),
    },
    (customerId, id, body) => service.redeliverEvent(customerId, id, body.subscription_id),
  );

  redeliverRoute<{ since: string }>(
    '/webhook-subscriptions/:id/redeliver',
    {
      operationId: 'redeliverWebhookEventsSince',
      summary: 'Redeliver everything since a time',
      description:
        "Every event of the subscription's types since `since`: the catch-up after downtime or an " +
        `auto-disable. \`since\` may reach back at most ${REDELIVERY_WINDOW_DAYS} days (earlier: 422 ` +
        '`input.invalid`). An event still pending for this subscription is not queued again, so repeating ' +
        'the request adds nothing twice: `scheduled` counts only the new deliveries. Up to 10,000 per ' +
        'request; asking again continues past what is already pending.',
      params: z.strictObject({ id: SUBSCRIPTION_ID }),
      body: z.strictObject({
        since: z
          .string()
          .refine((s) => parseInstant(s, 'ceil') !== null, TIMESTAMP_HINT)
          .meta({ format: 'date-time', examples: ['2026-11-21T00:00:00Z'] }),
      }),
    },
    (customerId, id, body) => service.redeliverSince(customerId, id, new Date(Date.parse(body.since))),
  );
}
