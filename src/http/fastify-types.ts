import type { Principal } from '../keys/authenticate.ts';
import type { Scope } from '../keys/scopes.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the guard on every authenticated /api/v1 request. */
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** The scope a key needs for this route; absent means any valid key. */
    scope?: Scope;
    /** Served without a key (the webhook verification probe). */
    public?: boolean;
  }
}
