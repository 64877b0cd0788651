import { type ErrorCode, errorStatus } from './codes.ts';

export type Issue = { path: string[]; message: string };

/** The one error type services throw; the error handler turns it into a problem response. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly issues: Issue[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    detail: string,
    options: { issues?: Issue[]; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = 'AppError';
    this.code = code;
    this.status = errorStatus[code];
    this.issues = options.issues;
    this.headers = options.headers ?? {};
  }
}

export const notFound = (what: string): AppError => new AppError('resource.not_found', `${what} not found.`);

export const invalidInput = (issues: Issue[]): AppError =>
  new AppError('input.invalid', 'The request has invalid values; see issues.', { issues });
