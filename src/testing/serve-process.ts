import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';

/** Polls (a CLI run synchronously lets the server's output arrive only between commands). */
export async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!done()) {
    assert.ok(Date.now() < deadline, 'timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `serve` with `env`; resolves once its banner is out. `log` holds its JSON log lines (stdout). */
export async function serveOn(env: NodeJS.ProcessEnv, running: ChildProcess[]) {
  const child = spawn(process.execPath, ['src/main.ts', 'serve'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  const server = { banner: '', log: '' };
  child.stderr?.on('data', (d: Buffer) => {
    server.banner += d.toString();
  });
  child.stdout?.on('data', (d: Buffer) => {
    server.log += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  await until(() => {
    assert.equal(child.exitCode, null, server.banner);
    return /listening on[\s\S]*\n\n$/.test(server.banner);
  });
  const stop = () => {
    child.kill('SIGTERM');
    return exited;
  };
  return Object.assign(server, { stop });
}

/** The environment of `serve` on the embedded database in `dir`: no demo data, any port, its log on stdout. */
export const embeddedServe = (dir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  DATA_DIR: dir,
  DATABASE_URL: '',
  REDIS_URL: '',
  PORT: '0',
  DEMO_SEED: 'false',
  LOG_LEVEL: 'info',
  ...extra,
});
