import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DataDirLockedError, lockDataDir } from './data-dir-lock.ts';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'vca-lock-'));

describe('embedded data folder lock', () => {
  it('refuses while the owner lives; its release frees the folder', () => {
    const dir = tmp();
    const release = lockDataDir(dir);
    assert.equal(fs.readFileSync(path.join(dir, 'service.lock'), 'utf8'), String(process.pid));
    release();
    assert.equal(fs.existsSync(path.join(dir, 'service.lock')), false);
    // A lock held by another live process: the test runner that started us stands in for it.
    fs.writeFileSync(path.join(dir, 'service.lock'), String(process.ppid));
    assert.throws(
      () => lockDataDir(dir),
      (e: unknown) =>
        e instanceof DataDirLockedError && e.message.includes(`in use by process ${process.ppid}`),
    );
  });

  it('takes over a lock whose owner has died (crash recovery)', async () => {
    const dir = tmp();
    const child = spawn(process.execPath, ['-e', '']);
    const pid = child.pid ?? 0;
    await new Promise((resolve) => child.on('exit', resolve));
    fs.writeFileSync(path.join(dir, 'service.lock'), String(pid));
    const release = lockDataDir(dir);
    assert.equal(fs.readFileSync(path.join(dir, 'service.lock'), 'utf8'), String(process.pid));
    release();
    assert.equal(fs.existsSync(path.join(dir, 'service.lock')), false);
  });

  it('a second service process on the same folder stops with a clear message', () => {
    const dir = tmp();
    const release = lockDataDir(dir);
    try {
      const env = { ...process.env, DATA_DIR: dir, DATABASE_URL: '' };
      const res = spawnSync(process.execPath, ['src/main.ts', 'migrate'], {
        env,
        encoding: 'utf8',
        timeout: 30_000,
      });
      assert.equal(res.status, 1);
      assert.match(res.stderr, new RegExp(`in use by process ${process.pid}`));
    } finally {
      release();
    }
  });
});
