import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.ts';
import { lockDataDir } from './db/data-dir-lock.ts';
import { type DatabaseHandle, openDatabase } from './db/database.ts';
import { SCHEMA_TEMPLATE_FILE } from './db/schema-template.ts';

/** The opened database, and on the embedded one the data folder's lock, released by `close`. */
export type Storage = { database: DatabaseHandle; close(): Promise<void> };

/**
 * Locks the embedded data folder and opens the database (not yet migrated). Light to import on purpose: `serve`
 * starts it before loading the server's modules, so PGlite opens on its own thread meanwhile (main.ts).
 */
export async function openStorage(config: Config, say: (line: string) => void = () => {}): Promise<Storage> {
  const unlock = config.databaseUrl ? () => {} : lockDataDir(config.dataDir);
  const pgliteDir = path.join(config.dataDir, 'pglite');
  // A first start creates the cluster (from the template `npm install` prepared, else by initdb): say so.
  if (!config.databaseUrl && !fs.existsSync(pgliteDir)) {
    say(`Creating the embedded database in ${config.dataDir} (first start only)…\n`);
  }
  try {
    const database = await openDatabase({
      url: config.databaseUrl,
      pgliteDir,
      schemaTemplate: SCHEMA_TEMPLATE_FILE,
      poolSize: config.databasePoolSize,
      queryTimeoutMs: config.databaseQueryTimeoutMs,
    });
    return {
      database,
      async close() {
        await database.close();
        unlock();
      },
    };
  } catch (error) {
    unlock();
    throw error;
  }
}
