import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { apiResponses, POST_CODES } from '../http/index.ts';
import { requirePrincipal } from '../keys/index.ts';
import { parseIdempotencyKey } from './idempotency.ts';
import { type OutboundCallBody, outboundCallBody, outboundCallQuery } from './outbound.schema.ts';
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

const outboundCodes = ['perm.denied', 'input.invalid'] as const;

/**
 * POST /outbound-calls (scope outbound_calls): 201 with the queued call. An `Idempotency-Key` header makes
 * retries safe; replays carry `Idempotent-Replayed: true`. The dry run is its own operation (below).
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
          "each held to the outbound limits the operator set for the key's customer, then asks the voice provider " +
          'to place the call: 201 with the queued call; lifecycle webhooks follow. ' +
          'Send an `Idempotency-Key` (1–255 printable ASCII characters) to make retries safe: the same key and ' +
          'body within 24 h answer with the first response (`Idempotent-Replayed: true`); the same key with ' +
          'another body is 409. To see every check without placing anything: `POST /outbound-calls/dry-run` ' +
          '(its earlier form, `?dry_run=true` here, is answered by that operation).',
        tags: ['Outbound calls'],
        headers: idempotencyHeaders,
        body: outboundCallBody,
        querystring: outboundCallQuery,
        response: apiResponses(
          {
            201: {
              description: 'The call is queued (or the replay of an earlier 201).',
              schema: outboundCallSchema,
            },
          },
          [
            ...POST_CODES,
            ...outboundCodes,
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
      const key = parseIdempotencyKey(request.headers['idempotency-key']);
      const result = await outbound.place(principal, request.body as OutboundCallBody, key);
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      reply.header('location', `/api/v1/calls/${result.body.id}`);
      return reply.code(result.status).send(result.body);
    },
  );
}

/**
 * POST /outbound-calls/dry-run (scope outbound_calls): the same body as a placement, 200 with every check it
 * would make, nothing placed or reserved. Also answers `POST /outbound-calls?dry_run=true` (dry-run-alias.ts).
 */
export function registerDryRunOutboundCall(app: FastifyInstance, outbound: OutboundService): void {
  app.post(
    '/outbound-calls/dry-run',
    {
      config: { scope: 'outbound_calls' },
      schema: {
        operationId: 'dryRunOutboundCall',
        summary: 'Check an outbound call without placing it',
        description:
          'The same body and scope as `POST /outbound-calls`: every check a placement makes (assistant, number ' +
          "type, the key's country allowlist, its daily spend cap), each with its outcome and, when it refuses, the " +
          "code a placement would answer and the bound that refused (the key's own, or the outbound limits the " +
          'operator set for its customer). Nothing is placed or reserved; a failed check is `allowed: false`, ' +
          'not an error. Also reached as `POST /outbound-calls?dry_run=true`, its earlier form, kept for v1.',
        tags: ['Outbound calls'],
        body: outboundCallBody,
        querystring: z.strictObject({}),
        response: apiResponses(
          { 200: { description: 'What a placement would answer, check by check.', schema: dryRunSchema } },
          [...POST_CODES, ...outboundCodes],
        ),
      },
    },
    async (request) => outbound.dryRun(requirePrincipal(request), request.body as OutboundCallBody),
  );
}
