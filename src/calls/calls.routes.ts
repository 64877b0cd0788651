import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { apiResponses } from '../http/index.ts';
import { requirePrincipal } from '../keys/index.ts';
import { idParams } from '../pagination/index.ts';
import { listCallsQuery } from './calls.query.ts';
import type { CallsService } from './calls.service.ts';
import { callDetailSchema, callsPageSchema } from './calls.views.ts';

const customerOf = (request: FastifyRequest): string => requirePrincipal(request).customerId;

/** GET /calls: inbound and outbound together, newest first, cursor or page pagination (spec 4.3). */
export function registerListCalls(app: FastifyInstance, calls: CallsService): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/calls',
    {
      schema: {
        operationId: 'listCalls',
        summary: 'List calls',
        description:
          'Inbound and outbound calls together, newest first (`started_at`, then `id`). Pass `next_cursor` as ' +
          '`cursor` for the next page (recommended); `page` is an offset alternative (slower when deep). ' +
          'A cursor only continues the list it came from (same filters). Filters combine (all must match) and ' +
          'only ever see your own calls; `updated_since` finds the calls changed since an instant (polling).',
        tags: ['Calls'],
        querystring: listCallsQuery,
        response: apiResponses({ 200: { description: 'One page of calls.', schema: callsPageSchema } }, [
          'perm.denied',
          'input.invalid',
        ]),
      },
      config: { scope: 'read_calls' },
    },
    async (request) => calls.listCalls(customerOf(request), request.query),
  );
}

/** GET /calls/{id}: the detail shape; 404 for another customer's call (spec 4.4). */
export function registerGetCall(app: FastifyInstance, calls: CallsService): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/calls/:id',
    {
      schema: {
        operationId: 'getCall',
        summary: 'Get a call',
        description: "The detail shape. Another customer's call is a 404, like a missing one.",
        tags: ['Calls'],
        params: idParams,
        // Unknown query parameters are refused here too, as on every route (docs/spec-decisions.md).
        querystring: z.strictObject({}),
        response: apiResponses({ 200: { description: 'The call.', schema: callDetailSchema } }, [
          'perm.denied',
          'input.invalid',
          'resource.not_found',
        ]),
      },
      config: { scope: 'read_calls' },
    },
    async (request) => calls.getCall(customerOf(request), request.params.id),
  );
}
