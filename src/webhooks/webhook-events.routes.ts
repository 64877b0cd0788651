import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AppError } from '../errors/app-error.ts';
import { EVENT_TYPES } from '../events/events.table.ts';
import type { Principal } from '../keys/authenticate.ts';
import { apiResponses, POST_CODES } from '../openapi/responses.ts';
import { MAX_CURSOR_LENGTH } from '../pagination/cursor.ts';
import { parseInstant, TIMESTAMP_HINT } from '../pagination/instant.ts';
import { enumParam, idParams, intParam, tokenParam, uuidParam } from '../pagination/query-params.ts';
import { scheduledSchema, webhookEventsPageSchema } from './subscriptions.schema.ts';
import type { EventQuery, WebhookEventsService } from './webhook-events.service.ts';

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

const principal = (p: Principal | null): Principal => {
  if (!p) throw new AppError('internal.error', 'Route reached without a principal.');
  return p;
};

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
    async (request) => service.list(principal(request.principal).customerId, request.query as EventQuery),
  );

  app.post(
    '/webhook-events/:id/redeliver',
    {
      config: { scope: 'manage_webhooks' },
      schema: {
        operationId: 'redeliverWebhookEvent',
        summary: 'Redeliver one event',
        description: 'To one subscription, or to every live subscription of its type when none is named.',
        tags,
        params: idParams,
        body: z.strictObject({ subscription_id: SUBSCRIPTION_ID.optional() }),
        response: apiResponses({ 202: { description: 'Queued.', schema: scheduledSchema } }, [
          ...POST_CODES,
          'perm.denied',
          'input.invalid',
          'resource.not_found',
        ]),
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const { subscription_id } = request.body as { subscription_id?: string };
      return reply
        .code(202)
        .send(await service.redeliverEvent(principal(request.principal).customerId, id, subscription_id));
    },
  );

  app.post(
    '/webhook-subscriptions/:id/redeliver',
    {
      config: { scope: 'manage_webhooks' },
      schema: {
        operationId: 'redeliverWebhookEventsSince',
        summary: 'Redeliver everything since a time',
        description:
          "Every event of the subscription's types since `since`, up to 10,000 per request (ask again with a " +
          'later `since` for more): the catch-up after downtime or an auto-disable.',
        tags,
        params: z.strictObject({ id: SUBSCRIPTION_ID }),
        body: z.strictObject({
          since: z
            .string()
            .refine((s) => parseInstant(s, 'ceil') !== null, TIMESTAMP_HINT)
            .meta({ format: 'date-time', examples: ['2026-11-21T00:00:00Z'] }),
        }),
        response: apiResponses({ 202: { description: 'Queued.', schema: scheduledSchema } }, [
          ...POST_CODES,
          'perm.denied',
          'input.invalid',
          'resource.not_found',
        ]),
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const { since } = request.body as { since: string };
      const at = new Date(Date.parse(since));
      return reply
        .code(202)
        .send(await service.redeliverSince(principal(request.principal).customerId, id, at));
    },
  );
}
