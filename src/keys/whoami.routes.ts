import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { apiResponses } from '../http/index.ts';
import { requirePrincipal } from './request-principal.ts';
import { permissionsMap, SCOPES } from './scopes.ts';

/** The documented example answer (also the body of the bench's framework floor). */
export const IDENTITY_EXAMPLE = {
  customer_id: '0b6a7f0e-2d3c-4e5f-8a9b-1c2d3e4f5a6b',
  customer_name: 'Acme',
  mode: 'live',
  permissions: {
    read_assistants: true,
    read_calls: true,
    read_analytics: false,
    outbound_calls: false,
    manage_webhooks: true,
    send_sms: false,
  },
  key_prefix: 'svc_live_AbC',
} as const;

/** Spec 2.1, plus the key's public prefix (additive). */
export const identitySchema = z
  .object({
    customer_id: z.uuid(),
    customer_name: z.string(),
    mode: z
      .enum(['live', 'test'])
      .meta({ description: '`test` for a `svc_test_` key: it sees only test data (docs/test-mode.md).' }),
    permissions: z
      .object({
        read_assistants: z.boolean(),
        read_calls: z.boolean(),
        read_analytics: z.boolean(),
        outbound_calls: z.boolean(),
        manage_webhooks: z.boolean(),
        send_sms: z.boolean().meta({ description: 'POST /sms/send and reading text messages.' }),
      })
      .meta({ description: `Every scope (${SCOPES.join(', ')}) and whether this key has it.` }),
    key_prefix: z.string().meta({ description: 'First 12 characters of the key: safe to log and show.' }),
  })
  .meta({ id: 'Identity', examples: [IDENTITY_EXAMPLE] });

/** GET /auth/whoami: any valid key; the connection test of automation platforms (it counts against limits). */
export function registerWhoami(app: FastifyInstance): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/auth/whoami',
    {
      schema: {
        operationId: 'whoami',
        summary: 'Check the key',
        description:
          'Who the key belongs to and which scopes it has. Needs no scope; counts against the rate limits ' +
          '(use it as the connection test of an integration).',
        tags: ['Authentication'],
        querystring: z.strictObject({}),
        response: apiResponses({ 200: { description: 'The key is valid.', schema: identitySchema } }, [
          'input.invalid',
        ]),
      },
    },
    async (request) => {
      const p = requirePrincipal(request);
      return {
        customer_id: p.accountId,
        customer_name: p.customerName,
        mode: p.mode,
        permissions: permissionsMap(p.scopes),
        key_prefix: p.keyPrefix,
      };
    },
  );
}
