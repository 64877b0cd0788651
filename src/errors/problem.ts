import { STATUS_CODES } from 'node:http';
import type { AppError } from './app-error.ts';

export type Problem = {
  type: 'about:blank';
  title: string;
  status: number;
  detail: string;
  code: string;
  request_id: string;
  issues?: { path: string[]; message: string }[];
};

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

export function toProblem(error: AppError, requestId: string): Problem {
  const problem: Problem = {
    type: 'about:blank',
    title: STATUS_CODES[error.status] ?? 'Error',
    status: error.status,
    detail: error.message,
    code: error.code,
    request_id: requestId,
  };
  if (error.code === 'input.invalid') problem.issues = error.issues ?? [];
  return problem;
}
