import { type ErrorCode, errorStatus } from './codes.ts';

export type Issue = { path: string[]; message: string };

/** What a not-found error looked for (its table and id), so an operator's sentence can name it (src/cli/failure.ts). */
export type Missing = { table: string; id: string };

/** The one error type services throw; the error handler turns it into a problem response. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly issues: Issue[] | undefined;
  readonly headers: Record<string, string>;
  readonly missing: Missing | undefined;

  constructor(
    code: ErrorCode,
    detail: string,
    options: { issues?: Issue[]; headers?: Record<string, string>; missing?: Missing } = {},
  ) {
    super(detail);
    this.name = 'AppError';
    this.code = code;
    this.status = errorStatus[code];
    this.issues = options.issues;
    this.headers = options.headers ?? {};
    this.missing = options.missing;
  }
}

export const notFound = (what: string, missing?: Missing): AppError =>
  new AppError('resource.not_found', `${what} not found.`, { missing });

export const invalidInput = (issues: Issue[]): AppError =>
  new AppError('input.invalid', 'The request has invalid values; see issues.', { issues });
