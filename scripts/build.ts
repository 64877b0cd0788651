// Bundles the server into dist/ for `npm start`: `node scripts/build.ts` builds, `--if-stale` builds only when
// the sources changed since the last build (`prestart` runs that; `postinstall` builds).
//
// Why a bundle: from source, a start spends most of its time in Node's module loader (about 1,400 files,
// 1,200 of them in node_modules; docs/performance.md, "What the start spends"). A few files instead cut
// "listening" by a quarter to a half, and the process holds about 45 MB less (no TypeScript stripper). The tests, the CLI (`npm run cli`) and the benches' floors run from source.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = path.resolve(import.meta.dirname, '..');
export const DIST = path.join(ROOT, 'dist');
const STAMP_FILE = 'sources.sha256';
/** What `npm start` runs. */
export const START_ENTRY = path.join(DIST, 'main.js');

/** The entries: what `npm start` runs, the PGlite thread it starts, and what postinstall prepares with. */
const ENTRIES = {
  main: 'src/main.ts',
  'pglite-worker': 'src/db/pglite-worker.ts',
  'schema-template': 'src/db/schema-template.ts',
};

/**
 * Kept out of the bundle: native code (argon2), a package that loads its WebAssembly and data files from beside
 * itself (PGlite), node-postgres's optional native binding, and the ElevenLabs SDK (loaded only with
 * PROVIDER=elevenlabs; its contract tests run it from node_modules, so it runs in production as tested).
 */
const EXTERNAL = ['@node-rs/argon2', '@electric-sql/pglite', 'pg-native', '@elevenlabs/elevenlabs-js'];

/**
 * A hash of what the bundle is made from: the server's sources (not its tests), the locked dependencies and this
 * script.
 */
export function sourcesHash(root = ROOT): string {
  const sources = fs
    .globSync('src/**/*', { cwd: root })
    .filter((f) => !f.endsWith('.test.ts') && fs.statSync(path.join(root, f)).isFile());
  const hash = createHash('sha256');
  for (const f of [...sources.sort(), 'package-lock.json', 'scripts/build.ts'])
    hash
      .update(`${f}\0`)
      .update(fs.readFileSync(path.join(root, f)))
      .update('\0');
  return hash.digest('hex');
}

/** Whether `root`'s dist/ was built from other sources than its current ones (or not built). */
export function isStale(root = ROOT): boolean {
  try {
    return fs.readFileSync(path.join(root, 'dist', STAMP_FILE), 'utf8') !== sourcesHash(root);
  } catch {
    return true;
  }
}

export async function build(): Promise<void> {
  const hash = sourcesHash();
  const esbuild = await import('esbuild');
  const partial = `${DIST}.${process.pid}.partial`;
  fs.rmSync(partial, { recursive: true, force: true });
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: ENTRIES,
    outdir: partial,
    bundle: true,
    splitting: true, // keeps the lazy imports lazy: an operator command loads none of the server
    format: 'esm',
    platform: 'node',
    target: 'node24',
    packages: 'bundle',
    external: EXTERNAL,
    sourcemap: 'linked',
    logLevel: 'warning',
    // Bundled CommonJS packages call require(); an ES module has none of its own.
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
  });
  // The dashboard reads its static files from beside its module (src/dashboard/plugin.ts): in dist/, a chunk.
  fs.cpSync(path.join(ROOT, 'src', 'dashboard', 'static'), path.join(partial, 'static'), { recursive: true });
  fs.writeFileSync(path.join(partial, STAMP_FILE), hash);
  // Swapped in whole, so a server starting meanwhile never loads half of one build and half of another.
  const old = `${DIST}.${process.pid}.old`;
  if (fs.existsSync(DIST)) fs.renameSync(DIST, old);
  fs.renameSync(partial, DIST);
  fs.rmSync(old, { recursive: true, force: true });
}

let ensuring: Promise<void> | undefined;
/** Builds once in this process if the sources changed (the bench and the reliability suite run the bundle). */
export function ensureBuilt(): Promise<void> {
  ensuring ??= isStale() ? build() : Promise.resolve();
  return ensuring;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (!process.argv.includes('--if-stale') || isStale()) {
    const started = performance.now();
    await build();
    process.stdout.write(`Built dist/ in ${Math.round(performance.now() - started)} ms\n`);
  }
}
