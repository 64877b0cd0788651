import type { ControlRequest, ControlResponse } from '../control/protocol.ts';
import { controlSocketPath } from '../control/protocol.ts';
import { type ControlSocket, listenControlSocket } from '../control/socket-server.ts';
import type { Runtime } from '../runtime.ts';
import { type Cli, type CliIo, runAction } from './context.ts';
import { registerOperatorCommands, rootProgram } from './program.ts';
import { bufferedIo, runProgram } from './run-program.ts';

/**
 * Opens the data folder's control socket when the server runs on the embedded database, which no other process
 * may open while the server holds it. Null on PostgreSQL (the CLI opens the database itself), or if the socket
 * cannot be created (then the CLI says the folder is in use, as it did before the socket existed).
 */
export async function startControlSocket(runtime: Runtime): Promise<ControlSocket | null> {
  if (runtime.database.kind !== 'pglite') return null;
  const file = controlSocketPath(runtime.config.dataDir);
  try {
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
  const program = registerOperatorCommands(rootProgram(io), serverCli(runtime, request, io));
  const exitCode = await runProgram(program, request.argv, io);
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
    cwd: request.cwd,
    withRuntime: (action) => runAction(runtime, action, io),
    async readPassword() {
      if (request.password === undefined) throw new Error('The CLI sent no password.');
      return request.password;
    },
    seedProgress: async () => undefined,
  };
}
