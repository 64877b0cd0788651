import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import type { Database } from './database.ts';
import { migrations } from './migrations/index.ts';

/**
 * The one migrator used by start-up, the CLI and the tests. The migration tables are pinned to the
 * connection's current schema: left unpinned, Kysely accepts a migration table found in *any* schema of
 * the database, so a second schema (tests, tenants) would skip creating its own.
 */
export async function migrateToLatest(db: Database): Promise<string[]> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableSchema: rows[0]?.schema ?? 'public',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
