// Bundles the server into dist/ for `npm start`: `node scripts/build.ts` builds, `--if-stale` builds only when
// the sources changed since the last build (`prestart` runs that; `postinstall` builds).
//
// Why a bundle: from source, a start spends most of its time in Node's module loader (about 1,400 files,
// 1,200 of them in node_modules; docs/performance.md, "What the start spends"). A few files instead cut
// "listening" by a quarter to a half, and the process holds about 45 MB less (no TypeScript stripper). The
// tests, the CLI (`npm run cli`) and the benches' floors run from source.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = path.resolve(import.meta.dirname, '..');
export const DIST = path.join(ROOT, 'dist');
const STAMP_FILE = 'sources.sha256';
/** The files of the build in dist/, so that the next build knows which to keep. */
const FILE_LIST = 'files.json';

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

/** Builds `root`'s src/ into its dist/; returns the build's files (paths inside dist/). */
export async function build(root = ROOT): Promise<string[]> {
  const dist = path.join(root, 'dist');
  const hash = sourcesHash(root);
  const esbuild = await import('esbuild');
  const partial = `${dist}.${process.pid}.partial`;
  fs.rmSync(partial, { recursive: true, force: true });
  await esbuild.build({
    absWorkingDir: root,
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
    // V8 keeps every loaded script's source text in the heap: without whitespace, 6 MB less of it (12.5 → 6.5 MB
    // under load). Names are kept (no minifyIdentifiers), so stack traces still name functions.
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
    // Bundled CommonJS packages call require(); an ES module has none of its own.
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
  });
  // The dashboard reads its static files from beside its module (src/dashboard/plugin.ts): in dist/, a chunk.
  fs.cpSync(path.join(root, 'src', 'dashboard', 'static'), path.join(partial, 'static'), { recursive: true });
  return install(partial, dist, hash);
}

/**
 * Moves a new build into dist/ beside the previous one. A running server loads some chunks only when it needs them
 * (an operator command sent through its socket, the ElevenLabs adapter's errors), and chunks are named for their
 * content: so the previous build's files stay until the next build, and a rebuild under a running server never
 * removes what it may still load. Chunks go first and the entries after them, one rename each, then the stamp: a
 * server starting meanwhile loads either entry with every chunk it names present.
 */
function install(partial: string, dist: string, hash: string): string[] {
  const files = fs
    .readdirSync(partial, { recursive: true, encoding: 'utf8' })
    .filter((f) => fs.statSync(path.join(partial, f)).isFile());
  const isEntry = (f: string) => Object.keys(ENTRIES).some((e) => f === `${e}.js` || f === `${e}.js.map`);
  let previous: string[] = [];
  try {
    previous = JSON.parse(fs.readFileSync(path.join(dist, FILE_LIST), 'utf8'));
  } catch {
    // no previous build, or one from before this list: nothing of it is kept
  }
  for (const f of [...files.filter((f) => !isEntry(f)), ...files.filter(isEntry)]) {
    fs.mkdirSync(path.dirname(path.join(dist, f)), { recursive: true });
    fs.renameSync(path.join(partial, f), path.join(dist, f));
  }
  fs.writeFileSync(path.join(dist, FILE_LIST), JSON.stringify(files));
  fs.writeFileSync(path.join(dist, STAMP_FILE), hash);
  const keep = new Set([...files, ...previous, FILE_LIST, STAMP_FILE]);
  for (const f of fs.readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
    if (!keep.has(f) && fs.statSync(path.join(dist, f)).isFile()) fs.rmSync(path.join(dist, f));
  }
  fs.rmSync(partial, { recursive: true, force: true });
  return files;
}

let ensuring: Promise<void> | undefined;
/** Builds once in this process if the sources changed (the bench and the reliability suite run the bundle). */
export function ensureBuilt(): Promise<void> {
  ensuring ??= isStale() ? build().then(() => {}) : Promise.resolve();
  return ensuring;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (!process.argv.includes('--if-stale') || isStale()) {
    const started = performance.now();
    await build();
    process.stdout.write(`Built dist/ in ${Math.round(performance.now() - started)} ms\n`);
  }
}
