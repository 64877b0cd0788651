import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LoadSpec } from './load-spec.ts';
import type { LoadToolName } from './options.ts';
import { REPO_ROOT } from './paths.ts';
import { runCommand } from './proc.ts';
import { wrkScript } from './wrk-script.ts';

export type LoadResult = {
  tool: LoadToolName;
  requests: number;
  seconds: number;
  rps: number;
  /** Latency percentiles in ms. */
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  /** Answers with status >= 400, and socket errors or timeouts. */
  non2xx: number;
  errors: number;
  connections: number;
  rate: number | null;
};

let wrkPath: string | null | undefined;

/** Debian's wrk when installed (`apt-get install wrk`), else null. */
export function findWrk(): string | null {
  if (wrkPath !== undefined) return wrkPath;
  try {
    wrkPath = execFileSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).trim() || null;
  } catch {
    wrkPath = null;
  }
  return wrkPath;
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'voice-bench-'));
process.on('exit', () => fs.rmSync(scratch, { recursive: true, force: true }));

/** A file in this run's scratch folder (removed at exit). */
export function scratchFile(name: string, content: string): string {
  const file = path.join(scratch, name);
  fs.writeFileSync(file, content, { mode: 0o600 });
  return file;
}

let scripts = 0;

export async function runLoad(tool: LoadToolName, spec: LoadSpec): Promise<LoadResult> {
  return tool === 'wrk' ? runWrk(spec) : runAutocannon(spec);
}

async function runWrk(spec: LoadSpec): Promise<LoadResult> {
  const wrk = findWrk();
  if (!wrk) throw new Error('wrk is not installed');
  const script = scratchFile(`load-${++scripts}.lua`, wrkScript(spec));
  const args = ['-t', String(spec.threads), '-c', String(spec.connections), '-d', `${spec.seconds}s`];
  args.push('--timeout', '10s', '-s', script, spec.url);
  const done = await runCommand(wrk, args, { timeoutMs: (spec.seconds + 60) * 1000 });
  const line = /BENCH_RESULT (\{.*\})/.exec(done.stdout)?.[1];
  if (done.code !== 0 || !line) throw new Error(`wrk failed (${done.code}):\n${done.stdout}\n${done.stderr}`);
  const r = JSON.parse(line) as Record<string, number>;
  const n = (k: string) => r[k] ?? 0;
  const seconds = n('duration_us') / 1e6;
  return {
    tool: 'wrk',
    requests: n('requests'),
    seconds,
    rps: seconds > 0 ? n('requests') / seconds : 0,
    p50: n('p50') / 1000,
    p90: n('p90') / 1000,
    p99: n('p99') / 1000,
    max: n('max') / 1000,
    mean: n('mean') / 1000,
    non2xx: n('status'),
    errors: n('connect') + n('read') + n('write') + n('timeout'),
    connections: spec.connections,
    rate: spec.rate ?? null,
  };
}

async function runAutocannon(spec: LoadSpec): Promise<LoadResult> {
  const runner = path.join(REPO_ROOT, 'bench', 'lib', 'autocannon-runner.ts');
  const done = await runCommand(process.execPath, [runner, JSON.stringify(spec)], {
    timeoutMs: (spec.seconds + 60) * 1000,
  });
  const line = /BENCH_RESULT (\{.*\})/.exec(done.stdout)?.[1];
  if (done.code !== 0 || !line) throw new Error(`autocannon failed (${done.code}):\n${done.stderr}`);
  return JSON.parse(line) as LoadResult;
}
