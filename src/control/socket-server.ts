import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import { z } from 'zod';
import {
  type ControlRequest,
  type ControlResponse,
  MAX_REQUEST_BYTES,
  REQUEST_TIMEOUT_MS,
} from './protocol.ts';
import { NO_SERVER } from './socket-client.ts';
import { reachablePath } from './socket-path.ts';

export type ControlSocket = { close(): Promise<void> };

export type ControlSocketOptions = {
  /** A connection that has not sent its whole request line within this long is closed (REQUEST_TIMEOUT_MS). */
  requestTimeoutMs?: number;
};

const requestSchema = z.strictObject({
  argv: z.array(z.string()),
  cwd: z.string().min(1),
  password: z.string().optional(),
});

const inUse = (message: string) => Object.assign(new Error(message), { code: 'EADDRINUSE' });

/**
 * Listens on `file` for operator commands and answers each with what `run` returns. A socket already at `file`
 * that nobody answers on was left by a server that died without removing it: it is replaced. One that answers
 * belongs to a live server (another instance on PostgreSQL sharing the folder): it is left to it, and so is a
 * file that is not a socket (both fail with EADDRINUSE). The socket is bound under a name of its own, then renamed
 * over `file`: a stale one is replaced in one step, and the name Node removes at close is never another server's.
 * It is created with mode 0600 (a umask around the bind, which Node does synchronously), so only the user the
 * server runs as can connect; there is no moment when it is open to others. Any length of path works
 * (socket-path.ts).
 */
export async function listenControlSocket(
  file: string,
  run: (request: ControlRequest) => Promise<ControlResponse>,
  options: ControlSocketOptions = {},
): Promise<ControlSocket> {
  const existing = fs.lstatSync(file, { throwIfNoEntry: false });
  if (existing && !existing.isSocket()) throw inUse(`${file} exists and is not a socket; it is left alone.`);
  if (existing && (await isListening(file)))
    throw inUse(`Another server answers operator commands on ${file}.`);
  const bound = `${file}.${process.pid}-${randomBytes(4).toString('hex')}`;
  const target = reachablePath(bound);
  const reading = new Set<net.Socket>();
  const timeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const server = net.createServer((socket) => answerOne(socket, run, { timeoutMs, reading }));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      const umask = process.umask(0o177);
      try {
        server.listen(target.path, () => {
          server.off('error', reject);
          resolve();
        });
      } finally {
        process.umask(umask);
      }
    });
    fs.renameSync(bound, file);
  } catch (error) {
    if (server.listening) server.close();
    target.release();
    throw error;
  }
  const ours = fs.lstatSync(file);
  return {
    // Stops accepting (removing `file` unless another server has replaced it since); connections that have not
    // sent a request are closed; resolves once the commands in progress have answered.
    close: () =>
      new Promise<void>((resolve) => {
        const now = fs.lstatSync(file, { throwIfNoEntry: false });
        if (now?.ino === ours.ino && now.dev === ours.dev) fs.unlinkSync(file);
        for (const socket of reading) socket.destroy();
        server.close(() => {
          target.release();
          resolve();
        });
      }),
  };
}

/** Whether a server accepts connections on `file`; false for a stale socket. */
function isListening(file: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const target = reachablePath(file);
    const socket = net.createConnection(target.path);
    socket.on('connect', () => {
      target.release();
      socket.destroy();
      resolve(true);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      target.release();
      if (NO_SERVER.has(error.code ?? '')) resolve(false);
      else reject(error);
    });
  });
}

/**
 * Reads one request line, runs it, writes one response line and closes the connection. A connection that has
 * not sent its line within `timeoutMs` is closed unanswered; until it has, it is in `reading`.
 */
function answerOne(
  socket: net.Socket,
  run: (request: ControlRequest) => Promise<ControlResponse>,
  { timeoutMs, reading }: { timeoutMs: number; reading: Set<net.Socket> },
): void {
  let received = '';
  reading.add(socket);
  const deadline = setTimeout(() => socket.destroy(), timeoutMs);
  const stopWaiting = () => {
    clearTimeout(deadline);
    reading.delete(socket);
  };
  socket.setEncoding('utf8');
  socket.on('error', () => {}); // the CLI went away (Ctrl-C): nothing to answer
  socket.on('close', stopWaiting);
  const onData = (chunk: string) => {
    received += chunk;
    const end = received.indexOf('\n');
    if (end < 0) {
      if (received.length > MAX_REQUEST_BYTES) socket.destroy();
      return;
    }
    socket.off('data', onData);
    stopWaiting();
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
