import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AppError } from '../errors/app-error.ts';
import { EVENT_TYPES } from '../events/events.table.ts';
import type { Principal } from '../keys/authenticate.ts';
import { MAX_CURSOR_LENGTH } from '../pagination/cursor.ts';
import { parseInstant, TIMESTAMP_HINT } from '../pagination/instant.ts';
import { enumParam, idParams, intParam, tokenParam, uuidParam } from '../pagination/query-params.ts';
import type { EventQuery, WebhookEventsService } from './webhook-events.service.ts';

const SUBSCRIPTION_ID = z.string().regex(/^sub_[0-9a-f]{24}$/, 'Must be a subscription id such as sub_0123456789abcdef01234567.');

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
    { config: { scope: 'manage_webhooks' }, schema: { querystring: listQuery } },
    async (request) => service.list(principal(request.principal).customerId, request.query as EventQuery),
  );

  app.post(
    '/webhook-events/:id/redeliver',
    {
      config: { scope: 'manage_webhooks' },
      schema: { params: idParams, body: z.strictObject({ subscription_id: SUBSCRIPTION_ID.optional() }) },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const { subscription_id } = request.body as { subscription_id?: string };
      return reply.code(202).send(await service.redeliverEvent(principal(request.principal).customerId, id, subscription_id));
    },
  );

  app.post(
    '/webhook-subscriptions/:id/redeliver',
    {
      config: { scope: 'manage_webhooks' },
      schema: {
        params: z.strictObject({ id: SUBSCRIPTION_ID }),
        body: z.strictObject({
          since: z.string().refine((s) => parseInstant(s, 'ceil') !== null, TIMESTAMP_HINT),
        }),
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const { since } = request.body as { since: string };
      const at = new Date(Date.parse(since));
      return reply.code(202).send(await service.redeliverSince(principal(request.principal).customerId, id, at));
    },
  );
}
