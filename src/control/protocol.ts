import path from 'node:path';

/**
 * The operator CLI's channel to a running `serve` on the embedded database, which holds the data folder alone.
 *
 * Ours rather than a library's: it is one request and one answer between two copies of this program on one
 * machine, over a Unix socket whose file mode (0600) is the whole access control. One JSON line each way:
 * the command's arguments in, the output it printed and its exit code back. HTTP or JSON-RPC would add a
 * dependency and a framing for nothing they could check that this cannot.
 */
export type ControlRequest = {
  /** The command line after `main.ts`, as the operator typed it. */
  argv: string[];
  /** Where the operator ran it: relative paths in arguments (seed --keys-file) are relative to it. */
  cwd: string;
  /** A dashboard user's password, read by the CLI (prompt or --password-stdin) before it sends the command. */
  password?: string;
};

export type ControlResponse = { stdout: string; stderr: string; exitCode: number };

/** The socket could not be used, for a reason the operator can act on; the message says what to do. */
export class ControlSocketError extends Error {}

/** Longer lines are refused: a request is a command line, not a payload. */
export const MAX_REQUEST_BYTES = 1024 * 1024;

/**
 * A connection that has not sent its whole request line this long after connecting is closed unanswered: the CLI
 * writes it as soon as it is connected, so only a stuck or hostile client takes longer, and it must not hold a
 * connection (nor the server's stop, which waits for open connections) for ever.
 */
export const REQUEST_TIMEOUT_MS = 5_000;

export const controlSocketPath = (dataDir: string): string => path.join(dataDir, 'control.sock');

/**
 * The embedded data folder the environment points at, or null on PostgreSQL (DATABASE_URL), where nothing is
 * forwarded. Read from the environment directly, not through loadConfig: validating the whole configuration
 * loads zod, which costs the CLI about half a second on this machine. control.test.ts holds it to loadConfig.
 */
export function embeddedDataDir(env: NodeJS.ProcessEnv): string | null {
  if (env.DATABASE_URL) return null;
  return path.resolve(env.DATA_DIR || './data');
}
