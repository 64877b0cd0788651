// postinstall: prepares what a first `npm start` would otherwise spend its first seconds on. Never fails the
// install: anything it cannot prepare is done (more slowly) by the first start.
// 1. The empty PGlite cluster new data folders are loaded from (src/db/pglite-template.ts): skips initdb, in the
//    tests too.
// 2. The same cluster migrated (src/db/schema-template.ts): a first start finds its migrations applied.
// 3. Node's compile cache for the server's modules (src/main.ts enables it at every start).
import fs from 'node:fs';
import module from 'node:module';

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

try {
  // Loading the modules compiles them into the folder src/main.ts uses.
  const { COMPILE_CACHE_DIR } = await import('../src/compile-cache.ts');
  module.enableCompileCache(COMPILE_CACHE_DIR);
  await import('../src/serve.ts');
  await import('../src/cli/program.ts');
  module.flushCompileCache();
} catch (error) {
  say(`Skipped warming the compile cache: ${(error as Error).message}`);
}
process.exit(0);
