import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AppError, invalidInput } from '../errors/app-error.ts';
import type { Principal } from '../keys/authenticate.ts';
import type { SubscriptionsService } from './subscriptions.service.ts';

const MAX_CHALLENGE_LENGTH = 256;
const CHALLENGE_RE = /^[\x21-\x7e]+$/;
const SUBSCRIPTION_ID_RE = /^sub_[0-9a-f]{24}$/;

const subscriptionId = z
  .string()
  .regex(SUBSCRIPTION_ID_RE, 'Must be a subscription id such as sub_0123456789abcdef01234567.');
const intParam = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,6}$/, 'Must be a whole number.')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const createBody = z.strictObject({
  url: z.string({ error: 'Required: the https URL to deliver to.' }),
  events: z.array(z.string(), { error: 'Required: an array of event names.' }).max(10),
  description: z.string().max(500).optional(),
});

const principal = (p: Principal | null): Principal => {
  if (!p) throw new AppError('internal.error', 'Route reached without a principal.');
  return p;
};

/** Spec 4.8-4.10: subscribe (idempotent), the verification probe, list, unsubscribe, and secret rotation. */
export function registerSubscriptionRoutes(app: FastifyInstance, service: SubscriptionsService): void {
  app.post(
    '/webhook-subscriptions',
    {
      config: { scope: 'manage_webhooks', challengeProbe: true },
      schema: { querystring: z.strictObject({ challenge: z.string().optional() }), body: createBody },
      // The probe answers before the body is validated: it has no body to speak of.
      preValidation: async (request, reply) => {
        const { challenge } = (request.query ?? {}) as { challenge?: unknown };
        if (challenge === undefined) return;
        if (
          typeof challenge !== 'string' ||
          challenge.length > MAX_CHALLENGE_LENGTH ||
          !CHALLENGE_RE.test(challenge)
        ) {
          throw invalidInput([
            {
              path: ['query', 'challenge'],
              message: `Must be 1 to ${MAX_CHALLENGE_LENGTH} printable ASCII characters.`,
            },
          ]);
        }
        return reply.code(202).send({ challenge });
      },
    },
    async (request, reply) => {
      const body = request.body as z.infer<typeof createBody>;
      const { created, subscription } = await service.subscribe(
        principal(request.principal).customerId,
        body,
      );
      return reply.code(created ? 201 : 200).send(subscription);
    },
  );

  app.get(
    '/webhook-subscriptions',
    {
      config: { scope: 'manage_webhooks' },
      schema: {
        querystring: z.strictObject({
          limit: intParam(1, 100).optional(),
          page: intParam(0, 100_000).optional(),
        }),
      },
    },
    async (request) => {
      const { limit = 25, page = 0 } = request.query as { limit?: number; page?: number };
      const rows = await service.list(principal(request.principal).customerId, limit + 1, page * limit);
      return { data: rows.slice(0, limit), has_more: rows.length > limit };
    },
  );

  app.get(
    '/webhook-subscriptions/:id',
    { config: { scope: 'manage_webhooks' }, schema: { params: z.strictObject({ id: subscriptionId }) } },
    async (request) =>
      service.get(principal(request.principal).customerId, (request.params as { id: string }).id),
  );

  const unsubscribe = async (customerId: string, id: string) => {
    await service.unsubscribe(customerId, id);
    return { id, deleted: true };
  };
  app.delete(
    '/webhook-subscriptions/:id',
    { config: { scope: 'manage_webhooks' }, schema: { params: z.strictObject({ id: subscriptionId }) } },
    async (request) =>
      unsubscribe(principal(request.principal).customerId, (request.params as { id: string }).id),
  );
  // Legacy form kept for v1 compatibility (spec 9.6).
  app.delete(
    '/webhook-subscriptions',
    { config: { scope: 'manage_webhooks' }, schema: { querystring: z.strictObject({ id: subscriptionId }) } },
    async (request) =>
      unsubscribe(principal(request.principal).customerId, (request.query as { id: string }).id),
  );

  app.post(
    '/webhook-subscriptions/:id/rotate-secret',
    { config: { scope: 'manage_webhooks' }, schema: { params: z.strictObject({ id: subscriptionId }) } },
    async (request) =>
      service.rotateSecret(principal(request.principal).customerId, (request.params as { id: string }).id),
  );
}
