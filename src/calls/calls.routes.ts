import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError } from '../errors/app-error.ts';
import { idParams } from '../pagination/query-params.ts';
import { listCallsQuery } from './calls.query.ts';
import type { CallsService } from './calls.service.ts';

function customerOf(request: FastifyRequest): string {
  if (!request.principal) throw new AppError('internal.error', 'Route reached without a principal.');
  return request.principal.customerId;
}

/** GET /calls: inbound and outbound together, newest first, cursor or page pagination (spec 4.3). */
export function registerListCalls(app: FastifyInstance, calls: CallsService): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get(
      '/calls',
      { schema: { querystring: listCallsQuery }, config: { scope: 'read_calls' } },
      async (request) => calls.listCalls(customerOf(request), request.query),
    );
}

/** GET /calls/{id}: the detail shape; 404 for another customer's call (spec 4.4). */
export function registerGetCall(app: FastifyInstance, calls: CallsService): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get('/calls/:id', { schema: { params: idParams }, config: { scope: 'read_calls' } }, async (request) =>
      calls.getCall(customerOf(request), request.params.id),
    );
}
