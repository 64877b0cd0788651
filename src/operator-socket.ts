import fs from 'node:fs';
import {
  bufferedIo,
  type Cli,
  type CliIo,
  registerOperatorCommands,
  rootProgram,
  runProgram,
} from './cli/index.ts';
import type { ControlRequest, ControlResponse } from './control/index.ts';
import { type ControlSocket, controlSocketPath, listenControlSocket } from './control/index.ts';
import type { Runtime } from './runtime.ts';

/**
 * Opens the data folder's control socket. On the embedded database no other process may open the folder while
 * the server holds it, so this is how operator commands reach it. On PostgreSQL the CLI could open the database
 * itself, but only with this server's DATABASE_URL and SERVER_SECRET: through the socket, a command pasted from
 * the start banner works as printed, from a shell with neither. Null if the socket cannot be created (another
 * instance on PostgreSQL answers on it already, then commands go to that one).
 */
export async function startControlSocket(runtime: Runtime): Promise<ControlSocket | null> {
  const file = controlSocketPath(runtime.config.dataDir);
  try {
    // The embedded folder exists (the server holds its lock); on PostgreSQL it may not (TLS files given).
    fs.mkdirSync(runtime.config.dataDir, { recursive: true, mode: 0o700 });
    return await listenControlSocket(file, (request) => runSentCommand(runtime, request));
  } catch (err) {
    runtime.logger.warn({ err, file }, 'no control socket: operator commands cannot reach this server');
    return null;
  }
}

/** Runs a command the CLI sent: the CLI's own program, in this process, on its runtime, output captured. */
export async function runSentCommand(runtime: Runtime, request: ControlRequest): Promise<ControlResponse> {
  const began = performance.now();
  const io = bufferedIo();
  const cli = serverCli(runtime, request, io);
  const program = registerOperatorCommands(rootProgram(io), cli);
  const exitCode = await runProgram(program, request.argv, {
    ...cli,
    onUnexpected: (err) => runtime.logger.error({ err }, 'operator command failed'),
  });
  runtime.logger.info(
    {
      command: request.argv
        .filter((word) => !word.startsWith('-'))
        .slice(0, 2)
        .join(' '),
      exitCode,
      ms: Math.round(performance.now() - began),
    },
    'operator command',
  );
  return { stdout: io.stdout(), stderr: io.stderr(), exitCode };
}

function serverCli(runtime: Runtime, request: ControlRequest, io: CliIo): Cli {
  return {
    io,
    embeddedDataDir: runtime.database.kind === 'pglite' ? runtime.config.dataDir : null,
    cwd: request.cwd,
    // Adopting a server secret here would adopt the one this server was started with, already checked.
    withRuntime: (action) => action(runtime),
    async readPassword() {
      if (request.password === undefined) throw new Error('The CLI sent no password.');
      return request.password;
    },
    seedProgress: async () => undefined,
  };
}
