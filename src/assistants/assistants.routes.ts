import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { apiResponses } from '../http/index.ts';
import { requirePrincipal } from '../keys/index.ts';
import { listAssistantsQuery } from './assistants.query.ts';
import type { AssistantsService } from './assistants.service.ts';
import { assistantsPageSchema } from './assistants.views.ts';

/** GET /assistants (spec 4.2): offset pagination with `total`, plus `page` and `cursor` (spec 4.11). */
export function registerListAssistants(app: FastifyInstance, assistants: AssistantsService): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/assistants',
    {
      schema: {
        operationId: 'listAssistants',
        summary: 'List assistants',
        description:
          'Newest first. Offset pagination with `total` (`limit`, `offset` or `page`), or keyset with `cursor` ' +
          '(pass `next_cursor`; it wins over `offset`/`page`). `id` selects one assistant (404 when not found).',
        tags: ['Assistants'],
        querystring: listAssistantsQuery,
        response: apiResponses(
          { 200: { description: 'One page of assistants.', schema: assistantsPageSchema } },
          ['perm.denied', 'input.invalid', 'resource.not_found'],
        ),
      },
      config: { scope: 'read_assistants' },
    },
    async (request) => {
      // Assistants are the customer's in both modes: a test key calls with the real ones.
      return assistants.listAssistants(requirePrincipal(request).accountId, request.query);
    },
  );
}
