import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';

/*
 * PGlite creates a data folder by running initdb in WebAssembly: 5–15 s on this kind of machine, most of a first
 * start and of every test that opens a new folder. A just-initialised cluster is the same every time for one
 * PGlite version, so its dump (about 4.5 MB gzipped) is kept in node_modules/.cache and new folders are loaded
 * from it (about 1 s). It is written by `npm install` (postinstall) or after the first initdb; when it cannot be
 * read or written, a new folder simply runs initdb.
 */

const packageRoot = path.resolve(
  path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')),
  '..',
);
const version: string = JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8')).version;

/** PostgreSQL compiled to WebAssembly, as PGlite ships it. */
export const PGLITE_WASM_FILE = path.join(packageRoot, 'dist', 'pglite.wasm');

/** A file of the project's cache folder (node_modules/.cache/voice-calls-api), named for the PGlite version. */
export const templateFile = (kind: string): string =>
  path.resolve(packageRoot, '..', '..', '.cache', 'voice-calls-api', `pglite-${version}-${kind}.tar.gz`);

/** The empty cluster's dump for the installed PGlite version. */
export const TEMPLATE_FILE = templateFile('empty');

/** Whether `dir` (a PGlite data folder, or memory when absent) holds no cluster yet. */
export const isNewDataDir = (dir: string | undefined): boolean =>
  !dir || !fs.existsSync(path.join(dir, 'PG_VERSION'));

/** The template to load a new data folder from, if there is one. */
export function readTemplate(file = TEMPLATE_FILE): Blob | undefined {
  try {
    return new Blob([fs.readFileSync(file)]);
  } catch {
    return undefined;
  }
}

/** Saves `pglite`'s cluster as a template (atomically: workers may race); an empty one by default. */
export async function saveTemplate(pglite: PGlite, file = TEMPLATE_FILE): Promise<boolean> {
  const partial = `${file}.${process.pid}.${Date.now()}.partial`;
  try {
    const dump = await pglite.dumpDataDir('gzip');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(partial, file);
    return true;
  } catch {
    fs.rmSync(partial, { force: true });
    return false;
  }
}
