import { controlSocketPath, embeddedDataDir } from '../control/protocol.ts';
import { sendControlRequest } from '../control/socket-client.ts';
import type { Runtime, RuntimeOptions } from '../runtime.ts';
import type { Cli, CliIo } from './context.ts';
import { readPassword } from './password.ts';

export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  exitCode: 0,
};

/**
 * The CLI process. Without DATABASE_URL, a server running on the data folder (on the embedded database, which it
 * holds, or on PostgreSQL) answers on the folder's control socket: the command goes to it and the CLI prints what
 * the server's run of it printed. With no server there (or with DATABASE_URL) the CLI opens storage itself.
 * Storage modules are imported only then: the path through the socket loads little more than commander.
 */
export function localCli(argv: string[], io: CliIo): Cli {
  let password: string | undefined;
  const dataDir = embeddedDataDir(process.env);
  const cli: Cli = {
    io,
    embeddedDataDir: dataDir,
    cwd: process.cwd(),
    async readPassword(fromStdin) {
      password = await readPassword(fromStdin);
      return password;
    },
    async withRuntime(action, options = {}) {
      const answer = dataDir
        ? await sendControlRequest(controlSocketPath(dataDir), {
            argv,
            cwd: cli.cwd,
            ...(password === undefined ? {} : { password }),
          })
        : null;
      if (!answer) return openHere(action, options);
      io.out(answer.stdout);
      io.err(answer.stderr);
      io.exitCode = answer.exitCode;
    },
    async seedProgress() {
      const { progressBar } = await import('./progress-bar.ts');
      return progressBar();
    },
  };
  return cli;
}

async function openHere(action: (rt: Runtime) => Promise<void>, options: RuntimeOptions): Promise<void> {
  const [{ systemClock }, { loadConfig }, { createLogger }, { openRuntime }] = await Promise.all([
    import('../clock.ts'),
    import('../config.ts'),
    import('../logger.ts'),
    import('../runtime.ts'),
  ]);
  const config = loadConfig();
  const runtime = await openRuntime(
    config,
    systemClock,
    createLogger(config.logLevel ?? 'warn', process.stderr),
    options,
  );
  try {
    await action(runtime);
  } finally {
    await runtime.close();
  }
}
