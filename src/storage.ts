import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.ts';
import { lockDataDir } from './db/data-dir-lock.ts';
import { type DatabaseHandle, openDatabase } from './db/database.ts';
import { keepNewFilesPrivate, makePrivate } from './db/private-data-dir.ts';
import { SCHEMA_TEMPLATE_FILE } from './db/schema-template.ts';

/** The opened database, and on the embedded one the data folder's lock, released by `close`. */
export type Storage = { database: DatabaseHandle; close(): Promise<void> };

/**
 * Makes the data folder private to the service's user (src/db/private-data-dir.ts), locks it when the database is
 * embedded, and opens the database (not yet migrated). Light to import on purpose: `serve` starts it before loading
 * the server's modules, so PGlite opens on its own thread meanwhile (main.ts).
 */
export async function openStorage(config: Config, say: (line: string) => void = () => {}): Promise<Storage> {
  keepNewFilesPrivate();
  const { dataDir } = config;
  // Before the database opens: PGlite would follow a link inside, or write into a folder another user controls.
  if (fs.existsSync(dataDir)) makePrivate(dataDir);
  const unlock = config.databaseUrl ? () => {} : lockDataDir(dataDir);
  const pgliteDir = path.join(dataDir, 'pglite');
  // A first start creates the cluster (from the template `npm install` prepared, else by initdb): say so.
  if (!config.databaseUrl && !fs.existsSync(pgliteDir)) {
    say(`Creating the embedded database in ${dataDir} (first start only)…\n`);
  }
  try {
    const database = await openDatabase({
      url: config.databaseUrl,
      pgliteDir,
      schemaTemplate: SCHEMA_TEMPLATE_FILE,
      poolSize: config.databasePoolSize,
      queryTimeoutMs: config.databaseQueryTimeoutMs,
    });
    try {
      // Again: PGlite writes a new cluster (from its template or by initdb), and PostgreSQL some files at every
      // start, with modes of their own whatever the umask (0666, 0644).
      if (fs.existsSync(dataDir)) makePrivate(dataDir);
    } catch (error) {
      await database.close();
      throw error;
    }
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
