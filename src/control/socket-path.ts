import fs from 'node:fs';
import path from 'node:path';
import { ControlSocketError } from './protocol.ts';

/**
 * The longest Unix socket path every platform we run on takes: `sun_path` holds 108 bytes on Linux and 104 on
 * macOS, each with its terminating NUL. A longer path fails `listen` and `connect` with EINVAL.
 */
export const MAX_SOCKET_PATH_BYTES = 103;

/** The path to hand `listen` or `connect`, and what to close once it has served. */
export type ReachablePath = { path: string; release(): void };

/**
 * A path that reaches `file` whatever the length of its folder's path: `file` itself when it fits, else the same
 * file through a descriptor of its folder held by this process, `/proc/self/fd/<n>/<name>` (Linux), which the
 * kernel resolves like any other path. Nothing is created elsewhere (no link in a shared temporary folder for
 * another user to race), the socket stays in the data folder with its own mode, and a killed process leaves
 * nothing behind. `release` closes the descriptor: once connected, or once the server has closed (Node removes
 * the file it listened on by that path).
 */
export function reachablePath(file: string): ReachablePath {
  if (Buffer.byteLength(file) <= MAX_SOCKET_PATH_BYTES) return { path: file, release: () => {} };
  if (!fs.existsSync('/proc/self/fd')) {
    throw new ControlSocketError(
      `The control socket path ${file} is ${Buffer.byteLength(file)} bytes, longer than this system allows ` +
        `(${MAX_SOCKET_PATH_BYTES}): set DATA_DIR to a shorter path.`,
    );
  }
  const fd = fs.openSync(path.dirname(file), fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  let open = true;
  return {
    path: `/proc/self/fd/${fd}/${path.basename(file)}`,
    release() {
      if (open) fs.closeSync(fd);
      open = false;
    },
  };
}
