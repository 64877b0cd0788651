import type { CompiledQuery } from 'kysely';

/**
 * SQL text of every prepared query (`prepared.ts`) → its server-side statement name. PostgreSQL connections send
 * these as named statements (`database.ts`), so the server parses and plans each once per connection, not per run.
 */
export const statementNames = new Map<string, string>();

/**
 * Marks a compiled query to go out as a named statement, for queries whose text is fixed but too large to build
 * with `prepare` (the queues' claims, the webhook outcomes). Only for a bounded set of texts: each gets a name
 * for the life of the process.
 */
export function asNamedStatement<R>(query: CompiledQuery<R>): CompiledQuery<R> {
  if (!statementNames.has(query.sql)) statementNames.set(query.sql, `prepared_${statementNames.size + 1}`);
  return query;
}
