import type { FastifySchemaCompiler } from 'fastify';
import type { ZodError, ZodType } from 'zod';
import { type Issue, invalidInput } from '../errors/app-error.ts';

const PART_NAMES: Record<string, string> = {
  querystring: 'query',
  body: 'body',
  params: 'path',
  headers: 'header',
};

/** Zod issues as spec issues: one per problem, `path` starting with where the value was sent. */
export function zodIssues(error: ZodError, part: string): Issue[] {
  return error.issues.flatMap((issue): Issue[] => {
    const base = [part, ...issue.path.map(String)];
    if (issue.code === 'unrecognized_keys') {
      const noun = part === 'query' ? 'parameter' : 'field';
      return issue.keys.map((key) => ({ path: [...base, key], message: `Unknown ${noun} "${key}".` }));
    }
    return [{ path: base, message: issue.message }];
  });
}

/** Validates every request part with its zod schema and replaces it with the parsed value. */
export const zodValidatorCompiler: FastifySchemaCompiler<ZodType> =
  ({ schema, httpPart }) =>
  (data) => {
    const result = schema.safeParse(data ?? {});
    if (result.success) return { value: result.data };
    return { error: invalidInput(zodIssues(result.error, PART_NAMES[httpPart ?? 'body'] ?? 'body')) };
  };
