import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';
import { loadConfig } from './config.ts';
import type { Database } from './db/database.ts';
import { loadTls } from './http/tls.ts';
import { loadServerSecret } from './server-secret.ts';
import { KEPT_IN_DATA_DIR, openStorage } from './storage.ts';
import { entriesUnder, notPrivate, underLoosestUmask } from './testing/file-modes.ts';

/** DATABASE_URL needs a server secret (config.ts); this test never reads keys with it. */
const SERVER_SECRET = 'storage-test-secret-0123456789abcdef0123';
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'vca-storage-'));

/** What PostgreSQL writes while it runs: a new relation and its index, enough rows for new WAL segments. */
async function writeData(db: Database, table: string): Promise<void> {
  await sql`create table ${sql.table(table)} (id serial primary key, v text)`.execute(db);
  await sql`insert into ${sql.table(table)} (v) select repeat('x', 500) from generate_series(1, 40000)`.execute(
    db,
  );
  await sql`checkpoint`.execute(db);
}

async function rowsIn(db: Database, table: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(db);
  return rows[0]?.n ?? 0;
}

/** Loosens every mode under `dir` as `cp -r` or `tar` under umask 000 leaves a restored copy. */
function loosen(dir: string): void {
  for (const name of ['', ...fs.readdirSync(dir, { recursive: true }).map(String)]) {
    const entry = path.join(dir, name);
    fs.chmodSync(entry, fs.lstatSync(entry).isDirectory() ? 0o777 : 0o666);
  }
}

describe('the embedded data folder is private to the service’s user (issue 34)', () => {
  underLoosestUmask();

  it('a new folder (from the template) is private at start, with what PostgreSQL writes afterwards and at close', async () => {
    const dataDir = path.join(tmp(), 'data');
    const storage = await openStorage(loadConfig({ DATA_DIR: dataDir }));
    try {
      assert.deepEqual(notPrivate(dataDir), []);
      // What the service writes there after the storage opens: the server secret, the self-signed certificate.
      loadServerSecret(undefined, dataDir);
      await loadTls({ dataDir });
      assert.deepEqual(notPrivate(dataDir), []);
      const kept: readonly string[] = KEPT_IN_DATA_DIR;
      assert.deepEqual(
        fs.readdirSync(dataDir).filter((name) => !kept.includes(name)),
        [],
        'all of it is what makePrivate is told the service keeps',
      );
      const before = entriesUnder(dataDir);
      await writeData(storage.database.db, 'written');
      assert.ok(entriesUnder(dataDir) > before, 'new relation files and WAL segments were written');
      assert.deepEqual(notPrivate(dataDir), []);
      assert.equal(await rowsIn(storage.database.db, 'written'), 40000);
    } finally {
      await storage.close();
    }
    assert.deepEqual(notPrivate(dataDir), []);
  });

  it('a folder restored with loose modes (cp -r, tar) is private from the start, and works', async () => {
    const dataDir = path.join(tmp(), 'data');
    const first = await openStorage(loadConfig({ DATA_DIR: dataDir }));
    await writeData(first.database.db, 'before');
    await first.close();
    fs.writeFileSync(path.join(dataDir, 'server-secret'), 'restored');
    loosen(dataDir);
    assert.ok(notPrivate(dataDir).length > 1000, 'every entry loose');

    const storage = await openStorage(loadConfig({ DATA_DIR: dataDir }));
    try {
      assert.deepEqual(notPrivate(dataDir), []);
      assert.equal(await rowsIn(storage.database.db, 'before'), 40000, 'the data is intact');
      await writeData(storage.database.db, 'after');
      assert.deepEqual(notPrivate(dataDir), [], 'recycled WAL segments too');
    } finally {
      await storage.close();
    }
    assert.deepEqual(notPrivate(dataDir), []);
  });

  it('a folder made by initdb (no template), whose files are 0666, is private from the start', async () => {
    const dataDir = tmp();
    const initdb = await PGlite.create(path.join(dataDir, 'pglite'));
    await initdb.close();
    assert.ok(notPrivate(dataDir).length > 900);
    const storage = await openStorage(loadConfig({ DATA_DIR: dataDir }));
    try {
      assert.deepEqual(notPrivate(dataDir), []);
      await writeData(storage.database.db, 'written');
      assert.deepEqual(notPrivate(dataDir), []);
    } finally {
      await storage.close();
    }
  });

  it('a folder, or anything in it, that belongs to another user stops the start before anything is opened or written', {
    skip: process.getuid?.() !== 0 && 'only root can give a file to another user',
  }, async () => {
    const theirs = tmp();
    fs.chownSync(theirs, 65534, 65534);
    const inside = tmp();
    fs.writeFileSync(path.join(inside, 'server-secret'), 's', { mode: 0o644 });
    fs.chownSync(path.join(inside, 'server-secret'), 65534, 65534);
    for (const [dataDir, entry] of [
      [theirs, theirs],
      [inside, path.join(inside, 'server-secret')],
    ] as const) {
      await assert.rejects(openStorage(loadConfig({ DATA_DIR: dataDir })), {
        name: 'Error',
        message: new RegExp(`^${entry} belongs to user 65534, not to the user the service runs as`),
      });
      assert.deepEqual(
        fs.readdirSync(dataDir).filter((name) => name !== 'server-secret'),
        [],
        'no lock taken, no database made',
      );
    }
    assert.equal(fs.statSync(theirs).mode & 0o777, 0o700, 'mkdtemp made it 0700; still theirs, untouched');
  });

  it('a symbolic link inside stops the start before the database opens: PGlite would write through it', async () => {
    const root = tmp();
    const elsewhere = path.join(root, 'elsewhere');
    fs.mkdirSync(elsewhere, { mode: 0o755 });
    const dataDir = path.join(root, 'data');
    fs.mkdirSync(dataDir);
    fs.symlinkSync(elsewhere, path.join(dataDir, 'pglite'));
    await assert.rejects(openStorage(loadConfig({ DATA_DIR: dataDir })), /pglite is a symbolic link/);
    assert.deepEqual(fs.readdirSync(elsewhere), [], 'no cluster written through the link');
    assert.equal(fs.statSync(elsewhere).mode & 0o777, 0o755);
    assert.equal(fs.existsSync(path.join(dataDir, 'service.lock')), false);
  });

  it("with DATABASE_URL the folder is not the database's: left as it is (a shared /tmp even), what the service writes there is private", {
    skip: !process.env.DATABASE_URL && 'needs DATABASE_URL',
  }, async () => {
    const shared = tmp();
    fs.chmodSync(shared, 0o1777);
    fs.writeFileSync(path.join(shared, 'someone-elses'), '', { mode: 0o644 });
    const storage = await openStorage(
      loadConfig({ DATA_DIR: shared, DATABASE_URL: process.env.DATABASE_URL, SERVER_SECRET }),
    );
    await storage.close();
    assert.equal(fs.statSync(shared).mode & 0o7777, 0o1777);
    assert.equal(fs.statSync(path.join(shared, 'someone-elses')).mode & 0o777, 0o644);

    const dataDir = path.join(tmp(), 'data');
    const again = await openStorage(
      loadConfig({ DATA_DIR: dataDir, DATABASE_URL: process.env.DATABASE_URL, SERVER_SECRET }),
    );
    await again.close();
    assert.equal(fs.existsSync(dataDir), false, 'not made when nothing needs it');
    loadServerSecret(undefined, dataDir);
    await loadTls({ dataDir });
    assert.deepEqual(notPrivate(dataDir), []);
  });
});
