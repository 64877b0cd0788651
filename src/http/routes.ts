import type { FastifyInstance } from 'fastify';
import { registerWhoami } from '../keys/whoami.routes.ts';
import type { Services } from '../services.ts';

/** Every /api/v1 route, registered explicitly so each one can be found by grep. */
export function registerApiRoutes(api: FastifyInstance, _services: Services): void {
  // Authentication
  registerWhoami(api);
}
