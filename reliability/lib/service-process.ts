import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureBuilt } from '../../scripts/build.ts';
import { npmStartCommand } from '../../scripts/start-command.ts';
import { testCertificate } from '../../src/testing/test-app.ts';
import { logFile } from './collector.ts';

const REPO = path.resolve(import.meta.dirname, '..', '..');

export type ServiceProcess = {
  name: string;
  pid: number;
  /** https://127.0.0.1:<port> for `serve`; null for `worker`. */
  url: string | null;
  /** Every byte the process wrote, stdout and stderr, for assertions on logs. */
  output(): string;
  /** Exit code or signal once it has exited; null while it runs. */
  exit(): { code: number | null; signal: NodeJS.Signals | null } | null;
  kill(signal?: NodeJS.Signals): Promise<void>;
};

export type ServiceOptions = {
  command: 'serve' | 'worker';
  name: string;
  env: Record<string, string>;
  /** Seconds to wait for the process to be ready. */
  readySeconds?: number;
};

let tls: { dir: string; cert: string; certFile: string; keyFile: string } | null = null;

/** The certificate every child serves (the test certificate), written once to files the children read. */
export async function childTls(): Promise<{ cert: string; certFile: string; keyFile: string }> {
  if (tls) return tls;
  const { key, cert } = await testCertificate();
  const dir = mkdtempSync(path.join(tmpdir(), 'reliability-tls-'));
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  writeFileSync(certFile, cert);
  writeFileSync(keyFile, key, { mode: 0o600 });
  tls = { dir, cert, certFile, keyFile };
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return tls;
}

const running = new Set<ServiceProcess>();

/** Kills every child this process started (by its own pid), whatever state a failed test left them in. */
export async function killAll(): Promise<void> {
  await Promise.all([...running].map((p) => p.kill('SIGKILL')));
}
function killChildren() {
  for (const p of running) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
process.once('exit', killChildren);
// A runner stopped from outside (its time limit, Ctrl-C) must not leave services behind.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    killChildren();
    process.exit(signal === 'SIGTERM' ? 143 : 130);
  });
}

/**
 * Starts `serve` or `worker` as a real process exactly as `npm start` runs the server (its environment, Node flags
 * and bundle, built first if the sources changed), logs to a file of the run, and waits until it listens (serve:
 * its banner names the URL) or has started its loop (worker: its log line).
 */
export async function startService(options: ServiceOptions): Promise<ServiceProcess> {
  const { certFile, keyFile } = await childTls();
  const dataDir = mkdtempSync(path.join(tmpdir(), `reliability-${options.name}-`));
  const start = npmStartCommand(REPO);
  const env: Record<string, string> = {
    ...start.env,
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    TLS_CERT_FILE: certFile,
    TLS_KEY_FILE: keyFile,
    DEMO_SEED: 'false',
    LOG_LEVEL: 'info',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    ...options.env,
  };
  await ensureBuilt();
  // `npm start`'s environment, flags and bundle, with the command asked for (`worker` runs under them too).
  const child: ChildProcess = spawn(process.execPath, [...start.flags, start.script, options.command], {
    cwd: REPO,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const file = createWriteStream(logFile(options.name));
  const chunks: string[] = [];
  let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  const exitPromise = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      resolve();
    });
  });
  let url: string | null = null;
  let ready: () => void = () => {};
  const readyPromise = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const onData = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    chunks.push(text);
    file.write(text);
    if (options.command === 'serve') {
      const m = /listening on (https:\/\/[^\s/]+)\/api\/v1/.exec(chunks.join(''));
      if (m?.[1]) {
        url = m[1];
        ready();
      }
    } else if (/webhook worker started/.test(text)) ready();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);

  const pid = child.pid ?? -1;
  const proc: ServiceProcess = {
    name: options.name,
    pid,
    get url() {
      return url;
    },
    output: () => chunks.join(''),
    exit: () => exited,
    async kill(signal = 'SIGTERM') {
      if (!exited) {
        child.kill(signal);
        const deadline = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exitPromise;
        clearTimeout(deadline);
      }
      running.delete(proc);
      file.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  running.add(proc);

  const seconds = options.readySeconds ?? 30;
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    readyPromise.then(() => 'ready' as const),
    exitPromise.then(() => 'exited' as const),
    new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), seconds * 1000);
    }),
  ]);
  clearTimeout(timer);
  if (outcome !== 'ready') {
    await proc.kill('SIGKILL');
    throw new Error(`${options.name} did not start (${outcome}):\n${proc.output().slice(-2000)}`);
  }
  return proc;
}
