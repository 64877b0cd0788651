// postinstall: prepares what a first `npm start` would otherwise spend its first seconds on. Never fails the
// install: anything it cannot prepare is done (more slowly) by the first start.
// 1. The empty PGlite cluster new data folders are loaded from (src/db/pglite-template.ts): skips initdb, in the
//    tests too.
// 2. The same cluster migrated (src/db/schema-template.ts): a first start finds its migrations applied.
// 3. The server's bundle in dist/ (scripts/build.ts), which `npm start` runs, and the migrated cluster as the
//    bundle names it (the name hashes the migrations' code, which the bundle prints differently).
// 4. Node's compile cache for the server's modules, from source and from dist/ (src/main.ts enables it at every
//    start).
import fs from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const say = (line: string) => process.stdout.write(`${line}\n`);

try {
  const { saveTemplate, TEMPLATE_FILE } = await import('../src/db/pglite-template.ts');
  if (!fs.existsSync(TEMPLATE_FILE)) {
    say('Preparing the embedded database template (once per install, 5-15 s)…');
    const { PGlite } = await import('@electric-sql/pglite');
    const pglite = await PGlite.create();
    const saved = await saveTemplate(pglite);
    await pglite.close();
    say(saved ? `Saved ${TEMPLATE_FILE}` : 'Could not save it; the first start will take longer.');
  }
  const { saveSchemaTemplate, SCHEMA_TEMPLATE_FILE } = await import('../src/db/schema-template.ts');
  if (!fs.existsSync(SCHEMA_TEMPLATE_FILE)) {
    const saved = await saveSchemaTemplate();
    say(saved ? `Saved ${SCHEMA_TEMPLATE_FILE}` : 'Could not save the migrated template.');
  }
} catch (error) {
  say(`Skipped the embedded database template: ${(error as Error).message}`);
}

// The build's own modules, to load into the compile cache below (dist/ also keeps the previous build's files, which
// nothing new loads, and dist/static/ holds the dashboard's browser script).
let bundled: string[] = [];
try {
  const { build, DIST } = await import('./build.ts');
  const files = await build();
  const { saveSchemaTemplate, SCHEMA_TEMPLATE_FILE } = await import(
    pathToFileURL(path.join(DIST, 'schema-template.js')).href
  );
  if (!fs.existsSync(SCHEMA_TEMPLATE_FILE)) await saveSchemaTemplate();
  bundled = files
    .filter(
      (f) => f.endsWith('.js') && path.dirname(f) === '.' && f !== 'main.js' && f !== 'pglite-worker.js',
    )
    .map((f) => path.join(DIST, f));
  say(`Built ${DIST} (what npm start runs)`);
} catch (error) {
  say(`Skipped building dist/ (npm start builds it): ${(error as Error).message}`);
}

try {
  // Loading the modules compiles them into the folder src/main.ts uses. dist/main.js would run the CLI: its
  // other files are the modules it loads.
  const { COMPILE_CACHE_DIR } = await import('../src/compile-cache.ts');
  module.enableCompileCache(COMPILE_CACHE_DIR);
  await import('../src/serve.ts');
  await import('../src/cli/program.ts');
  for (const f of bundled) await import(pathToFileURL(f).href);
  module.flushCompileCache();
} catch (error) {
  say(`Skipped warming the compile cache: ${(error as Error).message}`);
}
process.exit(0);
