import { controlSocketPath, embeddedDataDir } from '../control/protocol.ts';
import { sendControlRequest } from '../control/socket-client.ts';
import type { Runtime } from '../runtime.ts';
import { type Cli, type CliIo, runAction } from './context.ts';
import { readPassword } from './password.ts';

export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  exitCode: 0,
};

/**
 * The CLI process. On the embedded database a running server holds the data folder: the command goes to it
 * through the folder's control socket and the CLI prints what the server's run of it printed. With no server
 * there (or on PostgreSQL) the CLI opens storage itself. Storage modules are imported only then: the path
 * through the socket loads little more than commander.
 */
export function localCli(argv: string[], io: CliIo): Cli {
  let password: string | undefined;
  const cli: Cli = {
    io,
    cwd: process.cwd(),
    async readPassword(fromStdin) {
      password = await readPassword(fromStdin);
      return password;
    },
    async withRuntime(action) {
      const dataDir = embeddedDataDir(process.env);
      const answer = dataDir
        ? await sendControlRequest(controlSocketPath(dataDir), {
            argv,
            cwd: cli.cwd,
            ...(password === undefined ? {} : { password }),
          })
        : null;
      if (!answer) return openHere(action, io);
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

async function openHere(action: (rt: Runtime) => Promise<void>, io: CliIo): Promise<void> {
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
  );
  try {
    await runAction(runtime, action, io);
  } finally {
    await runtime.close();
  }
}
