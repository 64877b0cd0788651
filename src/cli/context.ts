import { AppError } from '../errors/app-error.ts';
import type { Runtime } from '../runtime.ts';
import type { SeedProgress } from './seed-dataset.ts';

export type OutputOptions = { json?: boolean };

/** Where a command's output goes: this process's streams, or buffers sent back through the control socket. */
export type CliIo = { out(text: string): void; err(text: string): void; exitCode: number };

/**
 * What the commands run on. Two hosts implement it: the CLI process (local-host.ts: through a running server's
 * control socket when there is one, else on the folder it opens itself) and the server (server-host.ts).
 */
export type Cli = {
  io: CliIo;
  /** Runs one action against open storage; domain errors become a message and exit code 1. */
  withRuntime(action: (rt: Runtime) => Promise<void>): Promise<void>;
  /** A dashboard user's password: typed or piped to the CLI process, and sent along through the socket. */
  readPassword(fromStdin: boolean): Promise<string>;
  /** The operator's working directory: relative paths in arguments are relative to it. */
  cwd: string;
  /** Progress of a long seed: a bar on the operator's terminal, nothing through the socket. */
  seedProgress(): Promise<SeedProgress | undefined>;
};

/** Prints a result as JSON (`--json`) or as the given human text. */
export function output(cli: Cli, options: OutputOptions, value: unknown, human: () => string): void {
  cli.io.out(options.json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

/** Runs an action on a runtime; an AppError is the operator's to read: its code, message and issues, exit 1. */
export async function runAction(
  runtime: Runtime,
  action: (rt: Runtime) => Promise<void>,
  io: CliIo,
): Promise<void> {
  try {
    await action(runtime);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    io.err(`error: ${error.code}: ${error.message}\n`);
    for (const issue of error.issues ?? []) io.err(`  ${issue.path.join('.')}: ${issue.message}\n`);
    io.exitCode = 1;
  }
}

/** A list as the commands print it (`US, CA`), `none` when empty. */
export const listed = (items: readonly string[]): string => items.join(', ') || 'none';

export const csv = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
