import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { KEPT_IN_DATA_DIR } from '../storage.ts';
import { notPrivate, underLoosestUmask } from '../testing/file-modes.ts';
import { DataDirUnsafeError, keepNewFilesPrivate, makePrivate } from './private-data-dir.ts';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'vca-private-'));
const modeOf = (p: string) => fs.lstatSync(p).mode & 0o7777;
const KEPT = KEPT_IN_DATA_DIR;

describe('makePrivate: the data folder is its user’s alone', () => {
  underLoosestUmask();

  it('sets every folder to 0700 and everything else to 0600 in what the service keeps, whatever it finds (a restore under umask 000)', async () => {
    const dir = tmp();
    fs.mkdirSync(path.join(dir, 'pglite', 'base', '5'), { recursive: true, mode: 0o777 });
    fs.mkdirSync(path.join(dir, 'tls'), { mode: 0o755 });
    const files: [string, number][] = [
      ['server-secret', 0o644],
      ['service.lock', 0o666],
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
    // A socket left by a server that was killed.
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(dir, 'control.sock'), resolve));
    assert.notEqual(notPrivate(dir).length, 0);

    const counts = makePrivate(dir, KEPT);
    assert.deepEqual(notPrivate(dir), []);
    assert.deepEqual(counts, { entries: 15, changed: 14 }, 'tls/key.pem was already 0600');
    for (const [file] of files) {
      assert.equal(fs.readFileSync(path.join(dir, file), 'utf8'), file, 'contents kept');
    }
    await new Promise((resolve) => server.close(resolve));
  });

  it('changes nothing in a folder that is already private', () => {
    const dir = tmp();
    fs.mkdirSync(path.join(dir, 'pglite'), { mode: 0o700 });
    fs.writeFileSync(path.join(dir, 'pglite', 'PG_VERSION'), '18', { mode: 0o600 });
    fs.chmodSync(dir, 0o700);
    assert.deepEqual(makePrivate(dir, KEPT), { entries: 3, changed: 0 });
  });

  it('leaves what the service does not keep there as it is (a DATA_DIR set to a folder of other things)', () => {
    const dir = tmp();
    fs.mkdirSync(path.join(dir, 'bin'), { mode: 0o755 });
    fs.writeFileSync(path.join(dir, 'bin', 'tool'), '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(path.join(dir, 'notes.txt'), '', { mode: 0o644 });
    fs.writeFileSync(path.join(dir, 'server-secret'), 's', { mode: 0o644 });
    makePrivate(dir, KEPT);
    assert.deepEqual(
      [dir, path.join(dir, 'server-secret'), path.join(dir, 'bin'), path.join(dir, 'bin', 'tool')].map(
        modeOf,
      ),
      [0o700, 0o600, 0o755, 0o755],
    );
    assert.equal(modeOf(path.join(dir, 'notes.txt')), 0o644);
  });

  it('follows DATA_DIR when it is itself a symbolic link (a folder moved to another disk)', () => {
    const root = tmp();
    const real = path.join(root, 'disk', 'data');
    fs.mkdirSync(real, { recursive: true, mode: 0o777 });
    fs.writeFileSync(path.join(real, 'server-secret'), 's', { mode: 0o666 });
    const link = path.join(root, 'data');
    fs.symlinkSync(real, link);
    makePrivate(link, KEPT);
    assert.deepEqual(notPrivate(real), []);
    assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link stays a link');
  });

  it('refuses a symbolic link among what it keeps, at any depth, naming it, and leaves what it points to unchanged', () => {
    const root = tmp();
    const outside = path.join(root, 'outside.sh');
    fs.writeFileSync(outside, '#!/bin/sh\n', { mode: 0o755 });
    const dir = path.join(root, 'data');
    fs.mkdirSync(path.join(dir, 'pglite', 'base'), { recursive: true });
    for (const link of [path.join(dir, 'server-secret'), path.join(dir, 'pglite', 'base', 'linked')]) {
      fs.symlinkSync(outside, link);
      assert.throws(
        () => makePrivate(dir, KEPT),
        (e: unknown) =>
          e instanceof DataDirUnsafeError && e.message.startsWith(`${link} is a symbolic link.`),
      );
      fs.unlinkSync(link);
    }
    assert.equal(modeOf(outside), 0o755);
  });

  it('refuses a shared folder (sticky bit, like /tmp), changing nothing', () => {
    const dir = tmp();
    fs.chmodSync(dir, 0o1777);
    fs.writeFileSync(path.join(dir, 'server-secret'), 's', { mode: 0o644 });
    assert.throws(
      () => makePrivate(dir, KEPT),
      /is a folder shared by several users \(it has the sticky bit/,
    );
    assert.equal(modeOf(dir), 0o1777);
    assert.equal(modeOf(path.join(dir, 'server-secret')), 0o644);
  });

  it('refuses what belongs to another user, naming it and the chown that gives it back', {
    skip: process.getuid?.() !== 0 && 'only root can give a file to another user',
  }, () => {
    const dir = tmp();
    const file = path.join(dir, 'server-secret');
    fs.writeFileSync(file, 's', { mode: 0o644 });
    fs.chownSync(file, 65534, 65534);
    assert.throws(
      () => makePrivate(dir, KEPT),
      (e: unknown) =>
        e instanceof DataDirUnsafeError &&
        e.message.startsWith(`${file} belongs to user 65534, not to the user the service runs as (0).`) &&
        e.message.includes(`chown -R 0 ${dir}`),
    );
    assert.equal(modeOf(file), 0o644, 'not ours to change');
    fs.chownSync(dir, 65534, 65534);
    fs.chmodSync(dir, 0o755);
    assert.throws(() => makePrivate(dir, KEPT), /belongs to user 65534/, 'the folder itself likewise');
    assert.equal(modeOf(dir), 0o755);
  });

  it('refuses a DATA_DIR that is not a folder', () => {
    const file = path.join(tmp(), 'data');
    fs.writeFileSync(file, '');
    assert.throws(() => makePrivate(file, KEPT), DataDirUnsafeError);
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
    assert.deepEqual(fs.readdirSync(dir), ['pglite'], 'no lock written');
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
