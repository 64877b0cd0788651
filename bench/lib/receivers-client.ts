import { fork } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './paths.ts';
import type { ReceiverCommand, ReceiverMessage } from './receivers.ts';

export type Receivers = {
  /** The receivers' process, for its CPU time. */
  pid: number | undefined;
  urls: string[];
  hangUrl: string;
  reset(): Promise<void>;
  counts(): Promise<{ counts: number[]; hung: number; blipped: number }>;
  /** Receiver `receiver` answers 500 for the next `ms`. */
  blip(receiver: number, ms: number): Promise<void>;
  /** Ends the requests the hanging receiver holds (their connections close). */
  release(): Promise<void>;
  records(): Promise<[string, number, number][]>;
  close(): Promise<void>;
};

/** Starts bench/lib/receivers.ts in a child process and talks to it one command at a time. */
export async function startReceivers(count: number, env: NodeJS.ProcessEnv): Promise<Receivers> {
  const child = fork(path.join(REPO_ROOT, 'bench', 'lib', 'receivers.ts'), [String(count)], {
    env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  let chain: Promise<unknown> = Promise.resolve();
  const ask = <T extends ReceiverMessage['type']>(cmd: ReceiverCommand, want: T) => {
    const p = chain.then(
      () =>
        new Promise<Extract<ReceiverMessage, { type: T }>>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('receivers did not answer')), 60_000);
          child.once('message', (m: ReceiverMessage) => {
            clearTimeout(timer);
            if (m.type === want) resolve(m as Extract<ReceiverMessage, { type: T }>);
            else reject(new Error(`receivers answered ${m.type}, not ${want}`));
          });
          child.send(cmd);
        }),
    );
    chain = p.catch(() => {});
    return p;
  };
  const ready = await new Promise<Extract<ReceiverMessage, { type: 'ready' }>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('receivers did not start')), 30_000);
    child.once('message', (m: ReceiverMessage) => {
      clearTimeout(timer);
      if (m.type === 'ready') resolve(m);
      else reject(new Error(`unexpected ${m.type}`));
    });
    child.once('exit', (code) => reject(new Error(`receivers exited with ${code}`)));
  });
  return {
    pid: child.pid,
    urls: ready.urls,
    hangUrl: ready.hangUrl,
    reset: async () => {
      await ask({ type: 'reset' }, 'counts');
    },
    counts: async () => {
      const m = await ask({ type: 'counts' }, 'counts');
      return { counts: m.counts, hung: m.hung, blipped: m.blipped };
    },
    blip: async (receiver, ms) => {
      await ask({ type: 'blip', receiver, ms }, 'counts');
    },
    release: async () => {
      await ask({ type: 'release' }, 'counts');
    },
    records: async () => (await ask({ type: 'records' }, 'records')).records,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        if (child.connected) child.disconnect();
        setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      }),
  };
}
