import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError } from '../errors/index.ts';
import { apiResponses } from '../http/index.ts';
import { isUuid } from '../ids.ts';
import { requirePrincipal } from '../keys/index.ts';
import { transcriptPendingSchema, transcriptSchema } from './transcripts.schema.ts';
import { type FetchResult, restView, type TranscriptsService } from './transcripts.service.ts';

const params = z.strictObject({
  id: z
    .string()
    .refine(isUuid, 'Must be a UUID.')
    .transform((s) => s.toLowerCase())
    .meta({ type: 'string', format: 'uuid' }),
});
const transcriptResponses = apiResponses(
  {
    200: { description: 'The transcript (REST form), stored from now on.', schema: transcriptSchema },
    202: {
      description: 'Not ready: still settling upstream, or the call is not answered yet. Ask again later.',
      schema: transcriptPendingSchema,
    },
  },
  ['perm.denied', 'input.invalid', 'resource.not_found', 'transcript.not_found', 'carrier.unavailable'],
);
const schema = (operationId: string, summary: string, description: string) => ({
  operationId,
  summary,
  description,
  tags: ['Transcripts'],
  params,
  querystring: z.strictObject({}),
  response: transcriptResponses,
});

/** Spec 3.2 as HTTP: stored 200, settling 202, provider down 502, no transcript 404. */
function respond(result: FetchResult, what: string) {
  switch (result.state) {
    case 'stored':
      return { status: 200, body: restView(result.transcript) };
    case 'pending':
      return {
        status: 202,
        body: {
          status: 'pending',
          call_id: result.callId,
          conversation_id: result.conversationId,
          retry_after_seconds: result.retryAfterSeconds,
          detail: result.conversationId
            ? 'The transcript is still settling upstream; it will be pushed as call.transcript.ready, or ask again later.'
            : 'The call has not been answered yet; ask again later.',
        },
      };
    case 'unavailable':
      throw new AppError(
        'carrier.unavailable',
        'The voice provider is unavailable; retry the request later.',
      );
    case 'absent':
      if (result.reason === 'no_call') throw new AppError('resource.not_found', `${what} not found.`);
      throw new AppError(
        'transcript.not_found',
        result.reason === 'no_conversation'
          ? 'This call has no transcript: it ended without a conversation.'
          : 'The voice provider no longer has this conversation.',
      );
  }
}

export function registerTranscriptRoutes(app: FastifyInstance, transcripts: TranscriptsService): void {
  const handler =
    (what: string, outboundOnly: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
      const { id } = request.params as z.output<typeof params>;
      const result = await transcripts.fetchAndStore(requirePrincipal(request).customerId, id, {
        outboundOnly,
      });
      const { status, body } = respond(result, what);
      return reply.code(status).send(body);
    };
  // Any call of the customer.
  app.get(
    '/calls/:id/transcript',
    {
      config: { scope: 'read_calls' },
      schema: schema(
        'getCallTranscript',
        'Get a call transcript',
        'Returned from the cache, or fetched from the voice provider and stored (spec 3.2). 202 while the ' +
          'conversation settles (`call.transcript.ready` follows for subscribers); 404 `transcript.not_found` ' +
          'when the call ended without a conversation.',
      ),
    },
    handler('Call', false),
  );
  // Only calls placed through POST /outbound-calls; any other call is a 404.
  app.get(
    '/outbound-calls/:id/transcript',
    {
      config: { scope: 'read_analytics' },
      schema: schema(
        'getOutboundCallTranscript',
        'Get an outbound call transcript',
        'As GET /calls/{id}/transcript, for calls placed through POST /outbound-calls only (any other call is a 404).',
      ),
    },
    handler('Outbound call', true),
  );
}
