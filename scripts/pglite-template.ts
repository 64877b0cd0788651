// postinstall: prepares the empty PGlite cluster that new data folders are loaded from (src/db/pglite-template.ts),
// so that the first `npm start` and the tests skip PGlite's initdb. Never fails the install.
import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { saveTemplate, TEMPLATE_FILE } from '../src/db/pglite-template.ts';

if (fs.existsSync(TEMPLATE_FILE)) process.exit(0);
try {
  process.stdout.write('Preparing the embedded database template (once per install, 5-15 s)…\n');
  const pglite = await PGlite.create();
  const saved = await saveTemplate(pglite);
  await pglite.close();
  process.stdout.write(
    saved ? `Saved ${TEMPLATE_FILE}\n` : 'Could not save it; the first start will take longer.\n',
  );
} catch (error) {
  process.stdout.write(`Skipped the embedded database template: ${(error as Error).message}\n`);
}
process.exit(0);
