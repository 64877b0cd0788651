import { isDeepStrictEqual } from 'node:util';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ZodType } from 'zod';
import { API_PREFIX, problemSchema } from '../http/index.ts';

export type ResponseMismatch = {
  requestId: string;
  method: string;
  url: string;
  status: number;
  problem: string;
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** The zod schema a route documents for this status and content type, or why there is none. */
function documentedSchema(
  responses: Record<string, unknown>,
  status: number,
  contentType: string,
): ZodType | string {
  const entry = responses[String(status)] ?? responses[`${String(status)[0]}xx`] ?? responses.default;
  if (entry === undefined) return `status ${status} is not documented`;
  if (entry instanceof ZodType) return entry;
  if (!isObject(entry) || !isObject(entry.content)) return `status ${status} has no schema`;
  const media = contentType.split(';')[0]?.trim() ?? '';
  const documented = entry.content[media];
  if (!isObject(documented) || !(documented.schema instanceof ZodType)) {
    return `status ${status} is not documented as ${media || 'no content type'} (documented: ${Object.keys(entry.content).join(', ')})`;
  }
  return documented.schema;
}

/** Keys present in `sent` but not in what the schema kept: fields the schema does not describe. */
function undocumentedPaths(sent: unknown, kept: unknown, path = ''): string[] {
  if (Array.isArray(sent) && Array.isArray(kept)) {
    return sent.flatMap((item, i) => undocumentedPaths(item, kept[i], `${path}[${i}]`));
  }
  if (isObject(sent) && isObject(kept) && !Array.isArray(sent)) {
    return Object.keys(sent).flatMap((key) =>
      key in kept ? undocumentedPaths(sent[key], kept[key], `${path}.${key}`) : [`${path}.${key}`],
    );
  }
  return [];
}

function check(request: FastifyRequest, reply: FastifyReply, payload: unknown): string | null {
  if (typeof payload !== 'string') return null;
  const contentType = String(reply.getHeader('content-type') ?? '');
  const responses = request.routeOptions.schema?.response;
  let schema: ZodType | string;
  if (isObject(responses)) schema = documentedSchema(responses, reply.statusCode, contentType);
  else if (request.routeOptions.url === undefined)
    schema = problemSchema; // unmatched: 401, 404, 405
  else return null; // a route the tests added themselves
  if (typeof schema === 'string') return schema;
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    return `the body is not JSON: ${payload.slice(0, 80)}`;
  }
  const result = schema.safeParse(body);
  if (!result.success) {
    return result.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
  }
  // Response schemas are plain objects (unknown keys stripped), so anything not kept is undocumented.
  if (!isDeepStrictEqual(result.data, body)) {
    const extra = undocumentedPaths(body, result.data);
    return extra.length > 0 ? `undocumented fields: ${extra.join(', ')}` : 'the schema changes the body';
  }
  return null;
}

/**
 * Tests only: checks every /api/v1 response against the zod schema its route documents for that status
 * and content type (an undocumented status, field or code is a mismatch too) and reports each mismatch.
 * Routes without response schemas (ones a test adds) are skipped; unmatched paths must be problems.
 */
export function checkResponses(app: FastifyInstance, report: (mismatch: ResponseMismatch) => void): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const path = request.url.split('?')[0] ?? '';
    if (path !== API_PREFIX && !path.startsWith(`${API_PREFIX}/`)) return payload;
    const problem = check(request, reply, payload);
    if (problem) {
      report({
        requestId: request.id,
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        problem,
      });
    }
    return payload;
  });
}
