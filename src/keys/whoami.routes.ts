import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AppError } from '../errors/app-error.ts';
import { permissionsMap } from './scopes.ts';

/** GET /auth/whoami: any valid key; the connection test of automation platforms (it counts against limits). */
export function registerWhoami(app: FastifyInstance): void {
  app.get('/auth/whoami', { schema: { querystring: z.strictObject({}) } }, async (request) => {
    const p = request.principal;
    if (!p) throw new AppError('internal.error', 'Route reached without a principal.');
    return {
      customer_id: p.customerId,
      customer_name: p.customerName,
      mode: 'live',
      permissions: permissionsMap(p.scopes),
      key_prefix: p.keyPrefix,
    };
  });
}
