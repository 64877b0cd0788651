import type { Database } from '../db/database.ts';
import type { NewCall } from '../db/tables/calls.table.ts';

/** Bulk insert in chunks that stay under PostgreSQL's 65,535 bind-parameter limit. */
export async function insertCalls(db: Database, rows: NewCall[]): Promise<void> {
  const chunk = 1_000;
  for (let i = 0; i < rows.length; i += chunk) {
    await db
      .insertInto('calls')
      .values(rows.slice(i, i + chunk))
      .execute();
  }
}
