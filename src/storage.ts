import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.ts';
import {
  type DatabaseHandle,
  keepNewFilesPrivate,
  lockDataDir,
  makePrivate,
  openDatabase,
  SCHEMA_TEMPLATE_FILE,
} from './db/index.ts';

const PGLITE_FOLDER = 'pglite';

/**
 * What the service keeps in the data folder: the embedded database, the generated server secret (server-secret.ts),
 * the self-signed certificate (http/tls.ts), the lock (db/data-dir-lock.ts) and the operator's socket (control/).
 */
export const KEPT_IN_DATA_DIR = [PGLITE_FOLDER, 'server-secret', 'tls', 'service.lock', 'control.sock'];

/** The opened database, and on the embedded one the data folder's lock, released by `close`. */
export type Storage = { database: DatabaseHandle; close(): Promise<void> };

/**
 * On the embedded database, makes the data folder private to the service's user (src/db/private-data-dir.ts) and
 * locks it; opens the database (not yet migrated). On PostgreSQL the folder holds at most the generated secret and
 * certificate, written private (the umask); its other contents are not the service's to change. Light to import on purpose: `serve` starts it before loading
 * the server's modules, so PGlite opens on its own thread meanwhile (main.ts).
 */
export async function openStorage(config: Config, say: (line: string) => void = () => {}): Promise<Storage> {
  keepNewFilesPrivate();
  const { dataDir } = config;
  const embedded = !config.databaseUrl;
  // Before the database opens: PGlite would follow a link inside, or write into a folder another user controls.
  if (embedded && fs.existsSync(dataDir)) makePrivate(dataDir, KEPT_IN_DATA_DIR);
  const unlock = embedded ? lockDataDir(dataDir) : () => {};
  const pgliteDir = path.join(dataDir, PGLITE_FOLDER);
  // A first start creates the cluster (from the template `npm install` prepared, else by initdb): say so.
  if (embedded && !fs.existsSync(pgliteDir)) {
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
      if (embedded) makePrivate(dataDir, KEPT_IN_DATA_DIR);
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
