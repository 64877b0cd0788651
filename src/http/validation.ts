import type { FastifySchemaCompiler } from 'fastify';
import type { ZodError, ZodType } from 'zod';
import { type Issue, invalidInput } from '../errors/index.ts';
import { unstorableText } from './text.ts';

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

/**
 * Validates every request part with its zod schema and replaces it with the parsed value. Every string in it, keys
 * of free-form objects included, must be text the database can keep (`unstorableText`): checked here once for all
 * routes rather than in each schema. A zod issue on the same path as such a one is left out: the text is why.
 */
export const zodValidatorCompiler: FastifySchemaCompiler<ZodType> =
  ({ schema, httpPart }) =>
  (data) => {
    const part = PART_NAMES[httpPart ?? 'body'] ?? 'body';
    const unstorable = unstorableText(data, [part]);
    const result = schema.safeParse(data ?? {});
    if (result.success && unstorable.length === 0) return { value: result.data };
    const seen = new Set(unstorable.map((i) => JSON.stringify(i.path)));
    const other = result.success ? [] : zodIssues(result.error, part);
    return {
      error: invalidInput([...unstorable, ...other.filter((i) => !seen.has(JSON.stringify(i.path)))]),
    };
  };
