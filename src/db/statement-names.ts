/**
 * SQL text of every prepared query (`prepared.ts`) → its server-side statement name. PostgreSQL connections send
 * these as named statements (`database.ts`), so the server parses and plans each once per connection, not per run.
 */
export const statementNames = new Map<string, string>();
