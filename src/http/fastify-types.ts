import type { Principal } from '../keys/authenticate.ts';
import type { Scope } from '../keys/scopes.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the guard on every authenticated /api/v1 request. */
    principal: Principal | null;
    /** The `code` of the problem this request was answered with, for logs and metrics. */
    problemCode: string | null;
  }
  interface FastifyContextConfig {
    /** The scope a key needs for this route; absent means any valid key. */
    scope?: Scope;
    /** With a `challenge` query parameter this route is the unauthenticated verification probe (spec 4.8). */
    challengeProbe?: boolean;
    /** The OpenAPI document: served without a key (still with X-Request-Id and rate headers). */
    publicDocs?: boolean;
  }
}
