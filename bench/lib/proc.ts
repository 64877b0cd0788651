import { type ChildProcess, spawn } from 'node:child_process';
import { REPO_ROOT } from './paths.ts';

export type Done = { code: number | null; stdout: string; stderr: string };

/** Runs a command to completion (bounded by `timeoutMs`), collecting its output. */
export function runCommand(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; timeoutMs: number; input?: string },
): Promise<Done> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: REPO_ROOT, env: opts.env ?? process.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${cmd} ${args.join(' ')} took longer than ${opts.timeoutMs} ms`));
    }, opts.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    if (opts.input !== undefined) child.stdin.end(opts.input);
    else child.stdin.end();
  });
}

/** Resolves with the first match of `re` in the child's stdout or stderr; rejects on exit or timeout. */
export function waitForLine(child: ChildProcess, re: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (c: Buffer) => {
      seen += c.toString();
      const m = re.exec(seen);
      if (m) {
        cleanup();
        resolve(m);
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`process exited (${code}) before printing ${re}:\n${seen.slice(-2000)}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no ${re} within ${timeoutMs} ms:\n${seen.slice(-2000)}`));
    }, timeoutMs);
    function cleanup() {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
    }
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', onExit);
  });
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
export function stopChild(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Resident memory of a process (Linux /proc) in bytes: all of it, anonymous, and file-backed or shared; null when gone. */
export async function memoryOf(pid: number): Promise<{ rss: number; anon: number; file: number } | null> {
  const { readFile } = await import('node:fs/promises');
  let status: string;
  try {
    status = await readFile(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const kb = (field: string) => new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1];
  const rss = kb('VmRSS');
  // A process that has exited but not been reaped still has a status file, without memory lines.
  if (rss === undefined) return null;
  const bytes = (value: string | undefined) => Number(value ?? 0) * 1024;
  return { rss: bytes(rss), anon: bytes(kb('RssAnon')), file: bytes(kb('RssFile')) + bytes(kb('RssShmem')) };
}

/** Resident set size of a process in bytes (Linux /proc), or null when it cannot be read. */
export async function rssOf(pid: number): Promise<number | null> {
  return (await memoryOf(pid))?.rss ?? null;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Waits until this process has been quiet (under a tenth of a core over 200 ms), at most `limitMs`. Opening
 * PGlite here (the data set's check and fixture) leaves V8 compiling its WebAssembly in the background for about
 * 2 s of CPU after the database is closed; a service started meanwhile shares the cores with that.
 */
export async function settle(limitMs = 15_000): Promise<void> {
  const deadline = performance.now() + limitMs;
  while (performance.now() < deadline) {
    const before = process.cpuUsage();
    await sleep(200);
    const used = process.cpuUsage(before);
    if ((used.user + used.system) / 1000 < 20) return;
  }
}
