import type { Session } from './sessions.service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the dashboard's session hook on every page that needs a signed-in user. */
    dashboardSession: Session | null;
  }
  interface FastifyContextConfig {
    /** Dashboard routes reachable without a session (sign-in, static assets). */
    dashboardPublic?: boolean;
  }
}
