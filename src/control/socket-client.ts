import net from 'node:net';
import { type ControlRequest, type ControlResponse, ControlSocketError } from './protocol.ts';
import { type ReachablePath, reachablePath } from './socket-path.ts';

/** Errors of a connection attempt that mean nobody listens there: no socket, or a stale one. */
export const NO_SERVER = new Set(['ENOENT', 'ENOTDIR', 'ECONNREFUSED']);

/**
 * Sends one command to the server listening on `file` and waits for its answer. Null when no server listens
 * there: no socket (or no folder), or a stale one left by a server that was killed (the caller then opens the
 * folder itself).
 */
export function sendControlRequest(file: string, request: ControlRequest): Promise<ControlResponse | null> {
  return new Promise((resolve, reject) => {
    let target: ReachablePath;
    try {
      target = reachablePath(file);
    } catch (error) {
      if (NO_SERVER.has((error as NodeJS.ErrnoException).code ?? '')) resolve(null);
      else reject(error);
      return;
    }
    let connected = false;
    let received = '';
    const socket = net.createConnection(target.path);
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      connected = true;
      target.release();
      // Not end(): the server answers on this connection, then closes it.
      socket.write(`${JSON.stringify(request)}\n`);
    });
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('end', () => {
      try {
        resolve(JSON.parse(received) as ControlResponse);
      } catch {
        reject(new ControlSocketError(`The server closed ${file} without answering (was it stopping?).`));
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      target.release();
      if (!connected && NO_SERVER.has(error.code ?? '')) resolve(null);
      else if (!connected && error.code === 'EACCES')
        reject(
          new ControlSocketError(
            `The running server's control socket ${file} belongs to another user: run the command as the user ` +
              'the server runs as.',
          ),
        );
      // Not left to the caller as a network error: it would read as the database being out of reach.
      else
        reject(
          new ControlSocketError(
            `The connection to the server on ${file} failed (${error.message}): was it stopping?`,
          ),
        );
    });
  });
}
