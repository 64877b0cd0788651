import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { API_PREFIX, apiResponses, TRANSPORT_CODES } from '../http/index.ts';
import { OPENAPI_PATH } from './openapi.plugin.ts';
import { REFERENCE_ADDED_CSS } from './reference-layout.ts';
import { FAVICON_PATH, FAVICON_SVG, REFERENCE_CSS, renderReference } from './reference-page.ts';
import { MAX_QUERY_LENGTH, search, searchIndex } from './reference-search.ts';

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

/** What `?q=` asks for: nothing (the whole page), a search, or a search refused with the reason. */
function searchOf(query: unknown): { q: string } | { refused: string; q: string } {
  const raw = typeof query === 'object' && query !== null && 'q' in query ? query.q : undefined;
  if (raw === undefined) return { q: '' };
  if (typeof raw !== 'string') return { refused: 'Search for one thing at a time (one q).', q: '' };
  if (raw.length > MAX_QUERY_LENGTH) {
    return {
      refused: `Search for at most ${MAX_QUERY_LENGTH} characters.`,
      q: raw.slice(0, MAX_QUERY_LENGTH),
    };
  }
  return { q: raw.trim() };
}

/**
 * GET /docs: the API reference rendered from the same document, and `?q=` searches it (its operations, events
 * and schemas, and their fields), answered with the page cut down to what matches; GET /docs/reference.css its
 * styles. The whole page is made once; a search renders the page again from the index made once.
 */
export function registerReferencePage(app: FastifyInstance): void {
  let made: { doc: Record<string, unknown>; page: string; index: ReturnType<typeof searchIndex> } | null =
    null;
  const reference = () => {
    if (made) return made;
    const doc = app.swagger() as unknown as Record<string, unknown>;
    made = { doc, page: renderReference(doc, OPENAPI_PATH), index: searchIndex(doc) };
    return made;
  };
  app.get(DOCS_PATH, async (request, reply) => {
    const { doc, page, index } = reference();
    const asked = searchOf(request.query);
    const html =
      'refused' in asked
        ? renderReference(doc, OPENAPI_PATH, { query: asked.q, notice: asked.refused })
        : asked.q === ''
          ? page
          : renderReference(doc, OPENAPI_PATH, { query: asked.q, hits: search(index, asked.q) });
    return reply
      .code('refused' in asked ? 422 : 200)
      .headers(PAGE_HEADERS)
      .type('text/html; charset=utf-8')
      .send(html);
  });
  app.get(`${DOCS_PATH}/reference.css`, async (_request, reply) =>
    reply
      .headers(PAGE_HEADERS)
      .header('cache-control', 'public, max-age=3600')
      .type('text/css; charset=utf-8')
      .send(`${REFERENCE_CSS}\n${REFERENCE_ADDED_CSS}`),
  );
  app.get(FAVICON_PATH, async (_request, reply) =>
    reply
      .headers(PAGE_HEADERS)
      .header('cache-control', 'public, max-age=86400')
      .type('image/svg+xml')
      .send(FAVICON_SVG),
  );
}
