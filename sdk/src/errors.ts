import type { ProblemCode } from './types.ts';

export type ProblemIssue = { path: string[]; message: string };

/**
 * An API error: the RFC 9457 problem the API answered with. Branch on `code` (stable), not on `detail`.
 * `requestId` is what support asks for. Responses that are not problem details (a proxy's HTML error page)
 * come as `code: "http.<status>"`.
 */
export class ProblemError extends Error {
  readonly status: number;
  readonly code: ProblemCode | (string & {});
  readonly title: string;
  readonly detail: string;
  readonly requestId: string | null;
  /** Only with `input.invalid`: every problem, `path` starting with query, body or path. */
  readonly issues: ProblemIssue[];
  /** From `Retry-After` (429, some 503), in seconds. */
  readonly retryAfterSeconds: number | null;
  /** The parsed body, as sent. */
  readonly body: unknown;

  constructor(o: {
    status: number;
    code: string;
    title: string;
    detail: string;
    requestId: string | null;
    issues?: ProblemIssue[];
    retryAfterSeconds?: number | null;
    body?: unknown;
  }) {
    super(`${o.status} ${o.code}: ${o.detail}${o.requestId ? ` (request ${o.requestId})` : ''}`);
    this.name = 'ProblemError';
    this.status = o.status;
    this.code = o.code;
    this.title = o.title;
    this.detail = o.detail;
    this.requestId = o.requestId;
    this.issues = o.issues ?? [];
    this.retryAfterSeconds = o.retryAfterSeconds ?? null;
    this.body = o.body;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const isIssue = (v: unknown): v is ProblemIssue =>
  isObject(v) &&
  Array.isArray(v.path) &&
  v.path.every((p) => typeof p === 'string') &&
  typeof v.message === 'string';

export function retryAfterSeconds(value: string | null): number | null {
  if (value === null || !/^\d+$/.test(value.trim())) return null;
  return Number(value.trim());
}

/** The error for a non-2xx answer: the problem body when there is one, else a generic `http.<status>`. */
export function problemFrom(
  status: number,
  headers: { get(name: string): string | null },
  text: string,
): ProblemError {
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON: kept as text.
  }
  const requestId = headers.get('x-request-id');
  const retryAfter = retryAfterSeconds(headers.get('retry-after'));
  if (isObject(body) && typeof body.code === 'string') {
    return new ProblemError({
      status,
      code: body.code,
      title: typeof body.title === 'string' ? body.title : '',
      detail: typeof body.detail === 'string' ? body.detail : '',
      requestId: typeof body.request_id === 'string' ? body.request_id : requestId,
      issues: Array.isArray(body.issues) ? body.issues.filter(isIssue) : [],
      retryAfterSeconds: retryAfter,
      body,
    });
  }
  return new ProblemError({
    status,
    code: `http.${status}`,
    title: `HTTP ${status}`,
    detail: typeof body === 'string' ? body.slice(0, 200) : 'The response was not a problem document.',
    requestId,
    retryAfterSeconds: retryAfter,
    body,
  });
}
