import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError } from '../errors/app-error.ts';
import { listAssistantsQuery } from './assistants.query.ts';
import type { AssistantsService } from './assistants.service.ts';

/** GET /assistants (spec 4.2): offset pagination with `total`, plus `page` and `cursor` (spec 4.11). */
export function registerListAssistants(app: FastifyInstance, assistants: AssistantsService): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get(
      '/assistants',
      { schema: { querystring: listAssistantsQuery }, config: { scope: 'read_assistants' } },
      async (request) => {
        if (!request.principal) throw new AppError('internal.error', 'Route reached without a principal.');
        return assistants.listAssistants(request.principal.customerId, request.query);
      },
    );
}
