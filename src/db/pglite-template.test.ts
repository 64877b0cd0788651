import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { openDatabase } from './database.ts';
import { isNewDataDir, readTemplate, saveTemplate } from './pglite-template.ts';

describe('the empty-cluster template that new PGlite folders load from', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pglite-template-'));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('is saved from a new cluster and loads into a new folder as a working one', async () => {
    const file = path.join(tmp, 'cache', 'empty.tar.gz');
    assert.equal(readTemplate(file), undefined, 'no template yet');
    const source = await PGlite.create();
    assert.equal(await saveTemplate(source, file), true);
    await source.close();
    const template = readTemplate(file);
    assert.ok(template && template.size > 0);
    assert.deepEqual(
      fs.readdirSync(path.dirname(file)),
      ['empty.tar.gz'],
      'written whole (no partial file left)',
    );

    const dir = path.join(tmp, 'loaded');
    const loaded = await PGlite.create(dir, { loadDataDir: template });
    assert.deepEqual((await loaded.query('select 1 + 1 as two')).rows, [{ two: 2 }]);
    await loaded.close();
    assert.equal(isNewDataDir(dir), false);
  });

  it('a folder is new when it or its cluster is missing, never when it holds one', async () => {
    const empty = path.join(tmp, 'empty');
    fs.mkdirSync(empty);
    const cases: [string | undefined, boolean][] = [
      [undefined, true],
      [path.join(tmp, 'missing'), true],
      [empty, true],
    ];
    for (const [dir, fresh] of cases) assert.equal(isNewDataDir(dir), fresh, String(dir));
    // A folder opened through the service keeps its data on the next open (it is not loaded over).
    const dir = path.join(tmp, 'kept');
    const first = await openDatabase({ pgliteDir: dir });
    await first.db.schema.createTable('kept').addColumn('x', 'integer').execute();
    await first.close();
    assert.equal(isNewDataDir(dir), false);
    const again = await openDatabase({ pgliteDir: dir });
    const tables = await again.db.introspection.getTables();
    assert.ok(tables.some((t) => t.name === 'kept'));
    await again.close();
  });

  it('a template that cannot be written is reported, not thrown, and leaves no partial file', async () => {
    const source = await PGlite.create();
    // A directory where the file should go: the rename fails.
    const blocked = path.join(tmp, 'blocked');
    fs.mkdirSync(path.join(blocked, 'file.tar.gz'), { recursive: true });
    assert.equal(await saveTemplate(source, path.join(blocked, 'file.tar.gz')), false);
    assert.deepEqual(fs.readdirSync(blocked), ['file.tar.gz'], 'no partial file left');
    await source.close();
  });
});
