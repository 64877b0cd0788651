import { sql } from 'kysely';
import { DEFAULT_MIGRATION_TABLE, Migrator } from 'kysely/migration';
import type { Database } from './database.ts';
import { migrations } from './migrations/index.ts';

/**
 * The one migrator used by start-up, the CLI and the tests. The migration tables are pinned to the
 * connection's current schema: left unpinned, Kysely accepts a migration table found in *any* schema of
 * the database, so a second schema (tests, tenants) would skip creating its own.
 */
export async function migrateToLatest(db: Database): Promise<string[]> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema ?? 'public';
  if (await isCurrent(db, schema)) return [];
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableSchema: schema,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Whether exactly the migrations this code knows are applied: one read, where the migrator would check its
 * tables, take its lock and compare (a few hundred milliseconds of every start on PGlite). Anything else (no
 * table yet, one missing, one this code does not know) goes to the migrator, which applies or refuses.
 */
async function isCurrent(db: Database, schema: string): Promise<boolean> {
  const applied = await sql<{
    name: string;
  }>`select name from ${sql.table(`${schema}.${DEFAULT_MIGRATION_TABLE}`)}`
    .execute(db)
    .then(
      (r) => r.rows.map((row) => row.name),
      () => null,
    );
  const known = Object.keys(migrations);
  return applied !== null && applied.length === known.length && known.every((name) => applied.includes(name));
}
