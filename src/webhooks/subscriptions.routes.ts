import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { invalidInput } from '../errors/index.ts';
import { apiResponses, POST_CODES } from '../http/index.ts';
import { requirePrincipal } from '../keys/index.ts';
import { EVENT_TYPES } from './event-types.ts';
import {
  challengeSchema,
  deletedSchema,
  rotatedSecretSchema,
  subscriptionSchema,
  subscriptionsPageSchema,
} from './subscriptions.schema.ts';
import type { SubscriptionsService } from './subscriptions.service.ts';

const MAX_CHALLENGE_LENGTH = 256;
const CHALLENGE_RE = /^[\x21-\x7e]+$/;
const SUBSCRIPTION_ID_RE = /^sub_[0-9a-f]{24}$/;

const subscriptionId = z
  .string()
  .regex(SUBSCRIPTION_ID_RE, 'Must be a subscription id such as sub_0123456789abcdef01234567.')
  .meta({ examples: ['sub_0123456789abcdef01234567'] });
const intParam = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,6}$/, 'Must be a whole number.')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const createBody = z.strictObject({
  url: z
    .string({ error: 'Required: the https URL to deliver to.' })
    .meta({ description: 'https:// URL on the public internet.', examples: ['https://example.com/hooks'] }),
  events: z
    .array(z.string(), { error: 'Required: an array of event names.' })
    .max(10)
    .meta({ description: `One or more of ${EVENT_TYPES.join(', ')}.`, examples: [['call.completed']] }),
  description: z.string().max(500).optional().meta({ description: 'Your label for it.' }),
});

const tags = ['Webhook subscriptions'];
const manage = ['perm.denied', 'input.invalid'] as const;
const idPath = z.strictObject({ id: subscriptionId });

/** Spec 4.8-4.10: subscribe (idempotent), the verification probe, list, unsubscribe, and secret rotation. */
export function registerSubscriptionRoutes(app: FastifyInstance, service: SubscriptionsService): void {
  app.post(
    '/webhook-subscriptions',
    {
      config: { scope: 'manage_webhooks', challengeProbe: true },
      schema: {
        operationId: 'createWebhookSubscription',
        summary: 'Subscribe to webhook events',
        description:
          'Idempotent on (url, set of events): a new subscription is 201 with its `secret` (shown once); the ' +
          'same url and events again are 200 with the existing subscription and no secret. At most 25 per ' +
          'customer (409). **Verification probe**: with `?challenge=<token>` no key is needed, nothing is ' +
          'stored, and the answer is 202 `{"challenge": "<token>"}` (limited per source address: 429 ' +
          '`rate.exceeded_ip`).',
        tags,
        querystring: z.strictObject({
          challenge: z
            .string()
            .optional()
            .meta({ description: 'Verification probe token: 1–256 printable ASCII characters.' }),
        }),
        body: createBody,
        response: apiResponses(
          {
            200: {
              description: 'Already subscribed: the existing subscription, without secret.',
              schema: subscriptionSchema,
            },
            201: {
              description: 'Subscribed: the new subscription with its `secret`.',
              schema: subscriptionSchema,
            },
            202: { description: 'Verification probe: the challenge echoed.', schema: challengeSchema },
          },
          [...POST_CODES, ...manage, 'resource.conflict', 'rate.exceeded_ip'],
        ),
      },
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
      const { created, subscription } = await service.subscribe(requirePrincipal(request).customerId, body);
      return reply.code(created ? 201 : 200).send(subscription);
    },
  );

  app.get(
    '/webhook-subscriptions',
    {
      config: { scope: 'manage_webhooks' },
      schema: {
        operationId: 'listWebhookSubscriptions',
        summary: 'List webhook subscriptions',
        description: 'Live subscriptions, auto-disabled ones included (`is_active: false`), oldest first.',
        tags,
        querystring: z.strictObject({
          limit: intParam(1, 100)
            .optional()
            .meta({ type: 'integer', minimum: 1, maximum: 100, description: 'Page size; default 25.' }),
          page: intParam(0, 100_000).optional().meta({ type: 'integer', minimum: 0, maximum: 100_000 }),
        }),
        response: apiResponses(
          { 200: { description: 'One page of subscriptions.', schema: subscriptionsPageSchema } },
          manage,
        ),
      },
    },
    async (request) => {
      const { limit = 25, page = 0 } = request.query as { limit?: number; page?: number };
      const rows = await service.list(requirePrincipal(request).customerId, limit + 1, page * limit);
      return { data: rows.slice(0, limit), has_more: rows.length > limit };
    },
  );

  app.get(
    '/webhook-subscriptions/:id',
    {
      config: { scope: 'manage_webhooks' },
      schema: {
        operationId: 'getWebhookSubscription',
        summary: 'Get a webhook subscription',
        tags,
        params: idPath,
        response: apiResponses({ 200: { description: 'The subscription.', schema: subscriptionSchema } }, [
          ...manage,
          'resource.not_found',
        ]),
      },
    },
    async (request) =>
      service.get(requirePrincipal(request).customerId, (request.params as { id: string }).id),
  );

  const deleted = apiResponses({ 200: { description: 'Unsubscribed.', schema: deletedSchema } }, [
    ...manage,
    'resource.not_found',
  ]);
  // The path form, and the legacy form with the id in the query, kept for v1 compatibility (spec 9.6).
  for (const form of [
    {
      url: '/webhook-subscriptions/:id',
      schema: {
        operationId: 'deleteWebhookSubscription',
        summary: 'Unsubscribe',
        description: "Deleting again, or another customer's id, is 404.",
        params: idPath,
      },
      idOf: (request: FastifyRequest) => (request.params as { id: string }).id,
    },
    {
      url: '/webhook-subscriptions',
      schema: {
        operationId: 'deleteWebhookSubscriptionLegacy',
        summary: 'Unsubscribe (legacy form)',
        description: 'Same as DELETE /webhook-subscriptions/{id}, with the id as a query parameter.',
        deprecated: true,
        querystring: z.strictObject({ id: subscriptionId }),
      },
      idOf: (request: FastifyRequest) => (request.query as { id: string }).id,
    },
  ]) {
    app.delete(
      form.url,
      { config: { scope: 'manage_webhooks' }, schema: { ...form.schema, tags, response: deleted } },
      async (request) => {
        const id = form.idOf(request);
        await service.unsubscribe(requirePrincipal(request).customerId, id);
        return { id, deleted: true };
      },
    );
  }

  app.post(
    '/webhook-subscriptions/:id/rotate-secret',
    {
      config: { scope: 'manage_webhooks' },
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: 'Rotate the signing secret',
        description:
          'A new secret, shown once. Until `previous_secret_expires_at` (24 h) deliveries carry both ' +
          '`X-Svc-Signature-256` (new secret) and `X-Svc-Signature-256-Previous` (old secret).',
        tags,
        params: idPath,
        response: apiResponses({ 200: { description: 'The new secret.', schema: rotatedSecretSchema } }, [
          ...POST_CODES,
          ...manage,
          'resource.not_found',
        ]),
      },
    },
    async (request) =>
      service.rotateSecret(requirePrincipal(request).customerId, (request.params as { id: string }).id),
  );
}
