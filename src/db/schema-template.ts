import { createHash } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import type { Migration } from 'kysely/migration';
import { PGLITE_SHARED_BUFFERS, pgliteSession } from './database.ts';
import { migrateToLatest } from './migrate.ts';
import { migrations } from './migrations/index.ts';
import { templateFile } from './pglite-template.ts';
import { startPgliteThread } from './pglite-thread.ts';
import type { DB } from './schema.ts';

/**
 * The migrated cluster's dump for the installed PGlite version and `ms` (their names and code). A new embedded
 * folder loaded from the empty cluster still runs every migration at its first start (0.7–0.85 s on this project's
 * machine, a sixth of a first `npm start`), so `npm install` also saves the migrated one; code with other
 * migrations finds no file of this name and migrates as before.
 */
export function schemaTemplateFor(ms: Record<string, Migration>): string {
  const hash = createHash('sha256')
    .update(
      Object.entries(ms)
        .map(([name, m]) => `${name}\n${m.up.toString()}\n${m.down?.toString() ?? ''}`)
        .join('\n'),
    )
    .digest('hex')
    .slice(0, 16);
  return templateFile(`schema-${hash}`);
}

export const SCHEMA_TEMPLATE_FILE = schemaTemplateFor(migrations);

/** Migrates a new cluster (from the empty template when there is one) and saves it as `file`. */
export async function saveSchemaTemplate(file = SCHEMA_TEMPLATE_FILE): Promise<boolean> {
  const thread = await startPgliteThread({
    dir: undefined,
    schemaTemplate: undefined,
    sharedBuffers: PGLITE_SHARED_BUFFERS,
  });
  try {
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: await pgliteSession(thread) }) });
    await migrateToLatest(db);
    await db.destroy();
    return await thread.dump(file);
  } finally {
    await thread.close();
  }
}
