import { Migrator } from 'kysely/migration';
import type { Database } from './database.ts';
import { migrations } from './migrations/index.ts';

/** The one migrator used by start-up, the CLI and the tests. */
export async function migrateToLatest(db: Database): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
