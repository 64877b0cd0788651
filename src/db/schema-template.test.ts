import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { openDatabase } from './database.ts';
import { migrateToLatest } from './migrate.ts';
import { migrations } from './migrations/index.ts';
import { SCHEMA_TEMPLATE_FILE, saveSchemaTemplate, schemaTemplateFor } from './schema-template.ts';

describe('the migrated template new embedded folders load from', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'schema-template-'));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const tables = async (dir: string, schemaTemplate: string) => {
    const handle = await openDatabase({ pgliteDir: path.join(tmp, dir), schemaTemplate });
    try {
      const applied = await migrateToLatest(handle.db);
      const names = (await handle.db.introspection.getTables()).map((t) => t.name);
      return { applied, names };
    } finally {
      await handle.close();
    }
  };

  it('a new folder loaded from it has every migration applied: the first start migrates nothing', async () => {
    const file = path.join(tmp, 'schema.tar.gz');
    assert.equal(await saveSchemaTemplate(file), true);
    const { applied, names } = await tables('from-schema', file);
    assert.deepEqual(applied, []);
    assert.ok(names.includes('calls') && names.includes('webhook_deliveries'), names.join());
  });

  it('without one for these migrations, a new folder is the empty cluster and is migrated at its first start', async () => {
    const { applied, names } = await tables('from-empty', path.join(tmp, 'missing.tar.gz'));
    assert.deepEqual(applied, Object.keys(migrations));
    assert.ok(names.includes('calls'));
  });

  it('is named for the migrations: another list, or a changed migration, names another file', () => {
    assert.equal(schemaTemplateFor(migrations), SCHEMA_TEMPLATE_FILE);
    const [first, ...rest] = Object.entries(migrations);
    assert.ok(first);
    const fewer = Object.fromEntries(rest);
    const changed = { ...migrations, [first[0]]: { ...first[1], up: async () => {} } };
    const names = new Set([SCHEMA_TEMPLATE_FILE, schemaTemplateFor(fewer), schemaTemplateFor(changed)]);
    assert.equal(names.size, 3);
    assert.equal(path.dirname(SCHEMA_TEMPLATE_FILE), path.dirname(schemaTemplateFor(fewer)));
  });
});
