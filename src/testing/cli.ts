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

export type CliRunner = ((...args: string[]) => CliResult) & {
  /** The data folder it runs on. */
  dir: string;
  /** The same CLI with more (or other) environment variables. */
  with(env: NodeJS.ProcessEnv): (...args: string[]) => CliResult;
};

/** The operator CLI as a script runs it (`node src/main.ts …`), with `env` on top of this process's. */
export function cliWith(env: NodeJS.ProcessEnv): (...args: string[]) => CliResult {
  return (...args) => {
    const res = spawnSync(process.execPath, ['src/main.ts', ...args], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 180_000,
    });
    return { status: res.status, stdout: res.stdout, stderr: res.stderr, json: () => JSON.parse(res.stdout) };
  };
}

/**
 * The operator CLI as a script runs it, on a throw-away embedded database of its own (never the test
 * database: the CLI must lock and migrate its own folder).
 */
export function cliOnFreshFolder(prefix: string): CliRunner {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const env = { DATA_DIR: dir, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'silent' };
  return Object.assign(cliWith(env), {
    dir,
    with: (more: NodeJS.ProcessEnv) => cliWith({ ...env, ...more }),
  });
}
