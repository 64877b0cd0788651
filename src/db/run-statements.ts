import { type Kysely, sql } from 'kysely';

/** Runs DDL one statement at a time: PGlite's extended protocol refuses several commands in one query. */
export async function runStatements(db: Kysely<unknown>, statements: string[]): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
