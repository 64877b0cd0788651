import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors/index.ts';
import type { Principal } from './authenticate.ts';
import type { Scope } from './scopes.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the guard on every authenticated API request; handlers read it with `requirePrincipal`. */
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** The scope a key needs for this route; absent means any valid key. */
    scope?: Scope;
  }
}

/**
 * The principal the guard authenticated. Every API request is authenticated before its handler runs, so this
 * only fails in a route that is public on purpose (`publicDocs`, the probe) and reads it anyway: a bug,
 * answered as one.
 */
export function requirePrincipal(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('internal.error', 'Route reached without a principal.');
  return request.principal;
}
