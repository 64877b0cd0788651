import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { npmStartCommand } from '../../scripts/start-command.ts';
import type { Backend } from './backend.ts';
import { MAIN_TS, REPO_ROOT } from './paths.ts';
import { rssOf, stopChild, waitForLine } from './proc.ts';

export type RunningService = {
  url: string;
  pid: number;
  /** From spawn to the "listening" line, ms. */
  listenMs: number;
  spawnedAt: number;
  /** Samples RSS every 250 ms until the returned function is called; it returns the peak in bytes. */
  sampleRss(): () => number | null;
  stop(): Promise<void>;
  child: ChildProcess;
};

/**
 * Starts the real service as `npm start` does (dist/main.js, which bench/run.ts builds first, with its Node
 * flags) as a child process on a free loopback port, with the backend's environment. `nodeArgs` adds e.g.
 * `--cpu-prof`; `fromSource` runs src/main.ts instead, for a profile whose frames name their packages.
 */
export function startService(
  backend: Backend,
  opts: { env?: Record<string, string>; redis?: boolean; nodeArgs?: string[]; fromSource?: boolean } = {},
): Promise<RunningService> {
  const start = npmStartCommand(REPO_ROOT);
  return startListening(
    [
      ...start.flags,
      ...(opts.nodeArgs ?? []),
      opts.fromSource ? MAIN_TS : path.join(REPO_ROOT, start.script),
      'serve',
    ],
    backend.env({ ...start.env, ...opts.env }, { redis: opts.redis ?? true }),
  );
}

/** Starts a floor server (bench/floors/NAME.ts) with the backend's environment. */
export function startFloor(backend: Backend, name: string, env: Record<string, string> = {}) {
  return startListening([path.join(REPO_ROOT, 'bench', 'floors', `${name}.ts`)], backend.env(env));
}

async function startListening(args: string[], env: NodeJS.ProcessEnv): Promise<RunningService> {
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (c: Buffer) => {
    tail = (tail + c.toString()).slice(-4000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  try {
    const m = await waitForLine(child, /listening on (https:\/\/[^\s/]+)\/api\/v1/, 120_000);
    const url = m[1];
    if (!url || child.pid === undefined) throw new Error('service did not report its address');
    const pid = child.pid;
    return {
      url,
      pid,
      child,
      spawnedAt,
      listenMs: performance.now() - spawnedAt,
      sampleRss() {
        let peak: number | null = null;
        const take = async () => {
          const rss = await rssOf(pid);
          if (rss !== null && (peak === null || rss > peak)) peak = rss;
        };
        void take();
        const timer = setInterval(() => void take(), 250);
        return () => {
          clearInterval(timer);
          return peak;
        };
      },
      async stop() {
        await stopChild(child);
        if (child.exitCode !== 0 && child.signalCode === null && child.exitCode !== null)
          process.stderr.write(`service exited with ${child.exitCode}:\n${tail}\n`);
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}
