import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error.ts';
import { parseIdempotencyKey } from './idempotency.ts';
import {
  type OutboundCallBody,
  type OutboundCallQuery,
  outboundCallBody,
  outboundCallQuery,
} from './outbound.schema.ts';
import type { OutboundService } from './outbound.service.ts';

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
      schema: { body: outboundCallBody, querystring: outboundCallQuery },
    },
    async (request, reply) => {
      const principal = request.principal;
      if (!principal) throw new AppError('internal.error', 'Route reached without a principal.');
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
