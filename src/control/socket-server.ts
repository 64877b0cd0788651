import fs from 'node:fs';
import net from 'node:net';
import { z } from 'zod';
import { type ControlRequest, type ControlResponse, MAX_REQUEST_BYTES } from './protocol.ts';

export type ControlSocket = { close(): Promise<void> };

const requestSchema = z.strictObject({
  argv: z.array(z.string()),
  cwd: z.string().min(1),
  password: z.string().optional(),
});

/**
 * Listens on `file` for operator commands and answers each with what `run` returns. The caller holds the data
 * folder's lock, so a socket already at `file` was left by a server that died without removing it: it is
 * replaced. The socket is created with mode 0600 (a umask around the bind, which Node does synchronously), so
 * only the user the server runs as can connect; there is no moment when it is open to others.
 */
export async function listenControlSocket(
  file: string,
  run: (request: ControlRequest) => Promise<ControlResponse>,
): Promise<ControlSocket> {
  if (fs.lstatSync(file, { throwIfNoEntry: false })?.isSocket()) fs.unlinkSync(file);
  const server = net.createServer((socket) => answerOne(socket, run));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const umask = process.umask(0o177);
    try {
      server.listen(file, () => {
        server.off('error', reject);
        resolve();
      });
    } finally {
      process.umask(umask);
    }
  });
  return {
    // Stops accepting; resolves once the commands in progress have answered. Node removes the socket file.
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Reads one request line, runs it, writes one response line and closes the connection. */
function answerOne(socket: net.Socket, run: (request: ControlRequest) => Promise<ControlResponse>): void {
  let received = '';
  socket.setEncoding('utf8');
  socket.on('error', () => {}); // the CLI went away (Ctrl-C): nothing to answer
  const onData = (chunk: string) => {
    received += chunk;
    const end = received.indexOf('\n');
    if (end < 0) {
      if (received.length > MAX_REQUEST_BYTES) socket.destroy();
      return;
    }
    socket.off('data', onData);
    void respond(received.slice(0, end)).then((response) => socket.end(`${JSON.stringify(response)}\n`));
  };
  socket.on('data', onData);

  async function respond(line: string): Promise<ControlResponse> {
    let request: ControlRequest;
    try {
      request = requestSchema.parse(JSON.parse(line));
    } catch {
      return { stdout: '', stderr: 'error: not a command request\n', exitCode: 2 };
    }
    try {
      return await run(request);
    } catch (error) {
      return {
        stdout: '',
        stderr: `error: ${error instanceof Error ? error.message : String(error)}\n`,
        exitCode: 1,
      };
    }
  }
}
