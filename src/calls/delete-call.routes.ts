import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { apiResponses } from '../http/index.ts';
import { requirePrincipal } from '../keys/index.ts';
import { idParams } from '../pagination/index.ts';
import type { CallRemoval } from './delete-call.ts';

/**
 * DELETE /calls/{id}: the call and everything that carries its content (transcript, insights, summary, its
 * events and their webhook deliveries, callback notifications); 204, then 404 for that id. Scope
 * `outbound_calls`, the one scope that writes calls: read-only integrations cannot destroy data.
 */
export function registerDeleteCall(app: FastifyInstance, removal: Pick<CallRemoval, 'deleteCall'>): void {
  app.withTypeProvider<ZodTypeProvider>().delete(
    '/calls/:id',
    {
      schema: {
        operationId: 'deleteCall',
        summary: 'Delete a call',
        description:
          'Deletes the call and everything that carries its content: its transcript, summary and insights, its ' +
          'events with their webhook deliveries (pending ones are not sent) and its `callback_url` ' +
          'notifications. The call then answers 404, and a late provider event or a retried request never ' +
          "makes it again. Its cost stays in the key's daily spend. A call that has not finished (still going " +
          "on, or being post-processed) answers 409 `call.in_progress`; another customer's call is a 404. " +
          'Calls are also deleted at the end of your retention period (dashboard, Settings).',
        tags: ['Calls'],
        params: idParams,
        querystring: z.strictObject({}),
        response: {
          204: z.null().meta({ description: 'Deleted; no body.' }),
          ...apiResponses({}, ['perm.denied', 'input.invalid', 'resource.not_found', 'call.in_progress']),
        },
      },
      config: { scope: 'outbound_calls' },
    },
    async (request, reply) => {
      await removal.deleteCall(requirePrincipal(request).customerId, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
