import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { notPrivate } from '../testing/file-modes.ts';
import { DataDirUnsafeError, keepNewFilesPrivate, makePrivate } from './private-data-dir.ts';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'vca-private-'));
const modeOf = (p: string) => fs.lstatSync(p).mode & 0o7777;

describe('makePrivate: the data folder is its user’s alone', () => {
  let umask: number;
  beforeEach(() => {
    umask = process.umask(0);
  });
  afterEach(() => {
    process.umask(umask);
  });

  it('sets every folder to 0700 and everything else to 0600, whatever it finds (a restore under umask 000)', async () => {
    const dir = tmp();
    fs.mkdirSync(path.join(dir, 'pglite', 'base', '5'), { recursive: true, mode: 0o777 });
    fs.mkdirSync(path.join(dir, 'tls'), { mode: 0o755 });
    const files: [string, number][] = [
      ['server-secret', 0o644],
      ['tls/key.pem', 0o600],
      ['tls/cert.pem', 0o644],
      ['pglite/PG_VERSION', 0o666],
      ['pglite/base/5/1259', 0o666],
      ['pglite/base/5/pg_internal.init', 0o644],
      ['pglite/postmaster.opts', 0o400],
      ['pglite/odd', 0o4755],
    ];
    for (const [file, mode] of files) {
      fs.writeFileSync(path.join(dir, file), file);
      fs.chmodSync(path.join(dir, file), mode);
    }
    fs.chmodSync(path.join(dir, 'pglite', 'base'), 0o711);
    fs.chmodSync(dir, 0o755);
    // A socket left by a server that was killed (the control socket lives in the folder).
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(dir, 'stale.sock'), resolve));
    assert.notEqual(notPrivate(dir).length, 0);

    const counts = makePrivate(dir);
    assert.deepEqual(notPrivate(dir), []);
    assert.deepEqual(counts, { entries: 14, changed: 13 }, 'tls/key.pem was already 0600');
    for (const [file] of files)
      assert.equal(fs.readFileSync(path.join(dir, file), 'utf8'), file, 'contents kept');
    await new Promise((resolve) => server.close(resolve));
  });

  it('changes nothing in a folder that is already private', () => {
    const dir = tmp();
    fs.mkdirSync(path.join(dir, 'pglite'), { mode: 0o700 });
    fs.writeFileSync(path.join(dir, 'pglite', 'PG_VERSION'), '18', { mode: 0o600 });
    fs.chmodSync(dir, 0o700);
    assert.deepEqual(makePrivate(dir), { entries: 3, changed: 0 });
  });

  it('follows DATA_DIR when it is itself a symbolic link (a folder moved to another disk)', () => {
    const root = tmp();
    const real = path.join(root, 'disk', 'data');
    fs.mkdirSync(real, { recursive: true, mode: 0o777 });
    fs.writeFileSync(path.join(real, 'server-secret'), 's', { mode: 0o666 });
    const link = path.join(root, 'data');
    fs.symlinkSync(real, link);
    makePrivate(link);
    assert.deepEqual(notPrivate(real), []);
    assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link stays a link');
  });

  it('refuses a symbolic link inside, naming it, and leaves what it points to unchanged', () => {
    const root = tmp();
    const outside = path.join(root, 'outside.sh');
    fs.writeFileSync(outside, '#!/bin/sh\n', { mode: 0o755 });
    const dir = path.join(root, 'data');
    fs.mkdirSync(path.join(dir, 'pglite'), { recursive: true });
    fs.symlinkSync(outside, path.join(dir, 'pglite', 'linked'));
    assert.throws(
      () => makePrivate(dir),
      (e: unknown) =>
        e instanceof DataDirUnsafeError &&
        e.message.startsWith(`${path.join(dir, 'pglite', 'linked')} is a symbolic link.`),
    );
    assert.equal(modeOf(outside), 0o755);
  });

  it('refuses an entry that belongs to another user, naming it and the chown that gives it back', {
    skip: process.getuid?.() !== 0 && 'only root can give a file to another user',
  }, () => {
    const dir = tmp();
    const file = path.join(dir, 'server-secret');
    fs.writeFileSync(file, 's', { mode: 0o644 });
    fs.chownSync(file, 65534, 65534);
    assert.throws(
      () => makePrivate(dir),
      (e: unknown) =>
        e instanceof DataDirUnsafeError &&
        e.message.startsWith(`${file} belongs to user 65534, not to the user the service runs as (0).`) &&
        e.message.includes(`chown -R 0 ${dir}`),
    );
    assert.equal(modeOf(file), 0o644, 'not ours to change');
    fs.chownSync(dir, 65534, 65534);
    assert.throws(() => makePrivate(dir), /belongs to user 65534/, 'the folder itself likewise');
  });

  it('a service command on such a folder stops with the message as it stands (exit 1), before opening anything', () => {
    const dir = tmp();
    fs.symlinkSync('/etc', path.join(dir, 'pglite'));
    const res = spawnSync(process.execPath, ['src/main.ts', 'migrate'], {
      env: { ...process.env, DATA_DIR: dir, DATABASE_URL: '' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(res.status, 1, res.stderr);
    assert.equal(
      res.stderr,
      `${path.join(dir, 'pglite')} is a symbolic link. The data folder (DATA_DIR) must hold its files itself: ` +
        'replace the link with what it points to.\n',
    );
  });

  it('refuses a DATA_DIR that is not a folder', () => {
    const file = path.join(tmp(), 'data');
    fs.writeFileSync(file, '');
    assert.throws(() => makePrivate(file), DataDirUnsafeError);
  });

  it('keepNewFilesPrivate: what the process creates afterwards is private, whatever umask it started with', () => {
    const dir = tmp();
    keepNewFilesPrivate();
    fs.mkdirSync(path.join(dir, 'new'));
    fs.writeFileSync(path.join(dir, 'new', 'file'), '');
    fs.writeFileSync(path.join(dir, 'asked-0666'), '', { mode: 0o666 });
    assert.equal(modeOf(path.join(dir, 'new')), 0o700);
    assert.equal(modeOf(path.join(dir, 'new', 'file')), 0o600);
    assert.equal(modeOf(path.join(dir, 'asked-0666')), 0o600);
  });
});
