export type { Issue } from './app-error.ts';
export { AppError, invalidInput, notFound } from './app-error.ts';
export type { ErrorCode } from './codes.ts';
export { errorStatus } from './codes.ts';
export { PROBLEM_CONTENT_TYPE, toProblem } from './problem.ts';
