import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type CliResult = {
  status: number | null;
  stdout: string;
  stderr: string;
  // biome-ignore lint/suspicious/noExplicitAny: CLI output is asserted field by field in tests
  json(): any;
};

/**
 * The operator CLI as a script runs it, on a throw-away embedded database of its own (never the test
 * database: the CLI must lock and migrate its own folder).
 */
export function cliOnFreshFolder(prefix: string): (...args: string[]) => CliResult {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const env = { ...process.env, DATA_DIR: dir, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'silent' };
  return (...args) => {
    const res = spawnSync(process.execPath, ['src/main.ts', ...args], {
      env,
      encoding: 'utf8',
      timeout: 180_000,
    });
    return { status: res.status, stdout: res.stdout, stderr: res.stderr, json: () => JSON.parse(res.stdout) };
  };
}
