import { STATUS_CODES } from 'node:http';
import { type ErrorCode, errorStatus } from '../../src/errors/codes.ts';

export type ProblemAnswer = { status: number; headers: Record<string, string>; body: unknown; text: string };

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const isCode = (code: unknown): code is ErrorCode =>
  typeof code === 'string' && Object.hasOwn(errorStatus, code);

/**
 * Why an answer is not a valid problem (spec 7), or null when it is: RFC 9457 fields, a known code whose
 * status is the response's, the request id of the header, `issues` exactly on input.invalid.
 */
export function problemDefect(res: ProblemAnswer): string | null {
  if (res.status < 400) return `status ${res.status} is not an error`;
  if (res.headers['content-type'] !== 'application/problem+json; charset=utf-8')
    return `content-type ${res.headers['content-type']}`;
  const b = res.body;
  if (typeof b !== 'object' || b === null || Array.isArray(b))
    return `body is not an object: ${res.text.slice(0, 200)}`;
  const p = b as Record<string, unknown>;
  if (p.type !== 'about:blank') return `type ${String(p.type)}`;
  if (p.status !== res.status) return `status field ${String(p.status)} ≠ ${res.status}`;
  if (p.title !== STATUS_CODES[res.status]) return `title ${String(p.title)}`;
  if (typeof p.detail !== 'string' || p.detail.length === 0) return 'no detail';
  if (!isCode(p.code)) return `unknown code ${String(p.code)}`;
  if (errorStatus[p.code] !== res.status) return `code ${p.code} with status ${res.status}`;
  if (typeof p.request_id !== 'string' || !UUID_RE.test(p.request_id))
    return `request_id ${String(p.request_id)}`;
  if (res.headers['x-request-id'] !== p.request_id) return 'X-Request-Id differs from request_id';
  if (p.code === 'input.invalid') {
    if (!Array.isArray(p.issues) || p.issues.length === 0) return 'input.invalid without issues';
    for (const issue of p.issues as unknown[]) {
      const i = issue as { path?: unknown; message?: unknown };
      if (!Array.isArray(i.path) || !i.path.every((s) => typeof s === 'string')) return 'issue path';
      if (typeof i.message !== 'string') return 'issue message';
    }
  } else if ('issues' in p) return `issues on ${p.code}`;
  if (res.status === 429 && !/^\d+$/.test(res.headers['retry-after'] ?? '')) return '429 without Retry-After';
  return null;
}

export const codeOf = (body: unknown): string | null =>
  typeof body === 'object' && body !== null && 'code' in body
    ? String((body as { code: unknown }).code)
    : null;
