import { z } from 'zod';
import { type ErrorCode, errorStatus } from '../errors/index.ts';

/** Spec 7: RFC 9457 problem details. The one error shape of the API. */
export const problemSchema = z
  .object({
    type: z.literal('about:blank'),
    title: z.string().meta({ description: 'HTTP status text.' }),
    status: z.number().int().meta({ description: 'Equals the response status.' }),
    detail: z.string().meta({ description: 'Human-readable explanation; do not parse it.' }),
    code: z.string().meta({ description: 'Stable machine identifier; see docs/errors.md for every code.' }),
    request_id: z.uuid().meta({ description: 'Also sent as X-Request-Id; quote it to support.' }),
    issues: z
      .array(
        z.object({
          path: z
            .array(z.string())
            .meta({ description: 'Where the value was sent first: query, body, path.' }),
          message: z.string(),
        }),
      )
      .optional()
      .meta({ description: 'Only with `input.invalid`: every problem found, one per value.' }),
  })
  .meta({
    id: 'Problem',
    description: 'RFC 9457 problem details, sent as `application/problem+json; charset=utf-8`.',
    examples: [
      {
        type: 'about:blank',
        title: 'Unprocessable Entity',
        status: 422,
        detail: 'The request has invalid values; see issues.',
        code: 'input.invalid',
        request_id: '9b2f6c1e-4a8d-4a51-9a3e-2f0c6f1d7e21',
        issues: [{ path: ['query', 'limit'], message: 'Must be a whole number from 1 to 100.' }],
      },
    ],
  });
export type ProblemBody = z.output<typeof problemSchema>;

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** Any request can be answered with these before its route is looked at: not over TLS, or no Host. */
export const TRANSPORT_CODES: readonly ErrorCode[] = ['transport.insecure', 'input.malformed'];

/** Any request to an authenticated /api/v1 route can be answered with these. */
export const AUTHENTICATED_CODES: readonly ErrorCode[] = [
  ...TRANSPORT_CODES,
  'auth.missing',
  'auth.invalid',
  'auth.revoked',
  'auth.expired',
  'auth.throttled',
  'rate.exceeded',
  'rate.exceeded_key',
  'internal.error',
];
/** Every POST can also fail before validation: body unreadable, too large, or not JSON. */
export const POST_CODES: readonly ErrorCode[] = [
  'input.malformed',
  'input.too_large',
  'input.unsupported_media_type',
];

type Success = { description: string; schema: z.ZodType };
type Content = { description: string; content: Record<string, { schema: z.ZodType }> };

function problemsByStatus(codes: readonly ErrorCode[]): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = errorStatus[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
}

/**
 * A route's `schema.response`: its success bodies (application/json) and one problem response per
 * status it can fail with, whose `code` is narrowed to the codes listed. The same object documents
 * the route (OpenAPI) and is what the test suite checks every response against.
 */
export function apiResponses(
  success: Record<number, Success>,
  codes: readonly ErrorCode[],
  options: { authenticated?: boolean } = {},
): Record<number, Content> {
  const all = [...(options.authenticated === false ? [] : AUTHENTICATED_CODES), ...codes];
  const result: Record<number, Content> = {};
  for (const [status, s] of Object.entries(success)) {
    result[Number(status)] = {
      description: s.description,
      content: { 'application/json': { schema: s.schema } },
    };
  }
  for (const [status, list] of [...problemsByStatus(all)].sort(([a], [b]) => a - b)) {
    const [first, ...rest] = list;
    if (!first) continue;
    const schema = z.intersection(problemSchema, z.object({ code: z.enum([first, ...rest]) }));
    result[status] = {
      description: `Problem: ${list.map((c) => `\`${c}\``).join(', ')}.`,
      content: { [PROBLEM_MEDIA_TYPE]: { schema } },
    };
  }
  return result;
}

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * Compile-time only: a view type built by a service and the zod schema that documents it have the
 * same shape. `sameShape<View, z.output<typeof schema>>()` fails to type-check when they drift.
 */
export function sameShape<A, B>(..._proof: Same<A, B> extends true ? [] : [never]): void {}
