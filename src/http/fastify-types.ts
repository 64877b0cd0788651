declare module 'fastify' {
  interface FastifyRequest {
    /** The `code` of the problem this request was answered with, for logs and metrics. */
    problemCode: string | null;
  }
  interface FastifyContextConfig {
    /** With a `challenge` query parameter this route is the unauthenticated verification probe (spec 4.8). */
    challengeProbe?: boolean;
    /** The OpenAPI document: served without a key (still with X-Request-Id and rate headers). */
    publicDocs?: boolean;
    /** Set by the guard on a POST that takes no body (no body schema, or one `{}` satisfies). */
    bodyOptional?: boolean;
  }
}

export {};
