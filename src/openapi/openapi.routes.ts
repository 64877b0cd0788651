import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { API_PREFIX } from '../http/prefixes.ts';
import { apiResponses, TRANSPORT_CODES } from '../http/responses.ts';
import { OPENAPI_PATH } from './openapi.plugin.ts';
import { FAVICON_PATH, FAVICON_SVG, REFERENCE_CSS, renderReference } from './reference-page.ts';

export const DOCS_PATH = '/docs';

const documentSchema = z.record(z.string(), z.unknown()).meta({
  id: 'OpenApiDocument',
  description: 'This OpenAPI 3.1 document.',
  examples: [{ openapi: '3.1.0', info: { title: 'Voice Assistant Calls API', version: '1.0.0' }, paths: {} }],
});

/** GET /api/v1/openapi.json: the document, without a key (the guard skips auth for `publicDocs`). */
export function registerOpenApiDocument(api: FastifyInstance): void {
  api.get(
    OPENAPI_PATH.slice(API_PREFIX.length),
    {
      config: { publicDocs: true },
      schema: {
        operationId: 'getOpenApiDocument',
        summary: 'This document',
        description: 'The OpenAPI 3.1 description of this API, generated from the schemas that validate it.',
        tags: ['Documentation'],
        response: apiResponses(
          { 200: { description: 'The document.', schema: documentSchema } },
          [...TRANSPORT_CODES, 'internal.error'],
          {
            authenticated: false,
          },
        ),
      },
    },
    async () => api.swagger(),
  );
}

const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** GET /docs: the API reference rendered from the same document; GET /docs/reference.css its styles. */
export function registerReferencePage(app: FastifyInstance): void {
  let page: string | null = null;
  app.get(DOCS_PATH, async (_request, reply) => {
    page ??= renderReference(app.swagger() as unknown as Record<string, unknown>, OPENAPI_PATH);
    return reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(page);
  });
  app.get(`${DOCS_PATH}/reference.css`, async (_request, reply) =>
    reply
      .headers(PAGE_HEADERS)
      .header('cache-control', 'public, max-age=3600')
      .type('text/css; charset=utf-8')
      .send(REFERENCE_CSS),
  );
  app.get(FAVICON_PATH, async (_request, reply) =>
    reply
      .headers(PAGE_HEADERS)
      .header('cache-control', 'public, max-age=86400')
      .type('image/svg+xml')
      .send(FAVICON_SVG),
  );
}
