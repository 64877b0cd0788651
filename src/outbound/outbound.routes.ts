import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { apiResponses, POST_CODES } from '../http/responses.ts';
import { requirePrincipal } from '../keys/request-principal.ts';
import { parseIdempotencyKey } from './idempotency.ts';
import {
  type OutboundCallBody,
  type OutboundCallQuery,
  outboundCallBody,
  outboundCallQuery,
} from './outbound.schema.ts';
import type { OutboundService } from './outbound.service.ts';
import { dryRunSchema, outboundCallSchema } from './outbound.views.ts';

/**
 * Documents the header; loose, so every other header passes through unchanged. The key itself is
 * checked by parseIdempotencyKey in the handler.
 */
const idempotencyHeaders = z.looseObject({
  'idempotency-key': z
    .string()
    .optional()
    .meta({
      description: 'Makes retries safe: one call per key and body, for 24 hours.',
      examples: ['order-1234-call'],
    }),
});

/**
 * POST /outbound-calls (scope outbound_calls): 201 with the queued call, or with `?dry_run=true`
 * 200 with the checks. An `Idempotency-Key` header makes retries safe; replays carry
 * `Idempotent-Replayed: true`.
 */
export function registerCreateOutboundCall(app: FastifyInstance, outbound: OutboundService): void {
  app.post(
    '/outbound-calls',
    {
      config: { scope: 'outbound_calls' },
      schema: {
        operationId: 'createOutboundCall',
        summary: 'Place an outbound call',
        description:
          "Checks the assistant, the number (type and the key's country allowlist) and the key's daily spend cap, " +
          "each held to the outbound limits the operator set for the key's customer (a dry run's checks name the " +
          'bound that refused), then asks the voice provider to place the call: 201 with the queued call; lifecycle webhooks follow. ' +
          'Send an `Idempotency-Key` (1–255 printable ASCII characters) to make retries safe: the same key and ' +
          'body within 24 h answer with the first response (`Idempotent-Replayed: true`); the same key with ' +
          'another body is 409. With `?dry_run=true`: 200 with every check, nothing placed or reserved.',
        tags: ['Outbound calls'],
        headers: idempotencyHeaders,
        body: outboundCallBody,
        querystring: outboundCallQuery,
        response: apiResponses(
          {
            200: {
              description: 'Dry run (`dry_run=true`): what a placement would answer.',
              schema: dryRunSchema,
            },
            201: {
              description: 'The call is queued (or the replay of an earlier 201).',
              schema: outboundCallSchema,
            },
          },
          [
            ...POST_CODES,
            'perm.denied',
            'input.invalid',
            'resource.not_found',
            'resource.conflict',
            'outbound.country_not_allowed',
            'outbound.number_not_allowed',
            'outbound.spend_cap_exceeded',
            'outbound.assistant_inactive',
            'outbound.assistant_no_phone_number',
            'assistant.not_linked',
            'carrier.unavailable',
            'carrier.busy',
          ],
        ),
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request);
      const body = request.body as OutboundCallBody;
      if ((request.query as OutboundCallQuery).dry_run) return outbound.dryRun(principal, body);
      const key = parseIdempotencyKey(request.headers['idempotency-key']);
      const result = await outbound.place(principal, body, key);
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      reply.header('location', `/api/v1/calls/${result.body.id}`);
      return reply.code(result.status).send(result.body);
    },
  );
}
