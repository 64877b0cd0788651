import type { Runtime, RuntimeOptions } from '../runtime.ts';
import type { SeedProgress } from './seed-dataset.ts';

export type OutputOptions = { json?: boolean };

/** Where a command's output goes: this process's streams, or buffers sent back through the control socket. */
export type CliIo = { out(text: string): void; err(text: string): void; exitCode: number };

/**
 * What the commands run on. Two hosts implement it: the CLI process (local-host.ts: through a running server's
 * control socket when there is one, else on the folder it opens itself) and the server (src/operator-socket.ts).
 */
export type Cli = {
  io: CliIo;
  /** The embedded data folder the commands use, null on PostgreSQL: failures name it (failure.ts). */
  embeddedDataDir: string | null;
  /** Runs one action against open storage; what it throws is reported by runProgram (failure.ts). */
  withRuntime(
    action: (rt: Runtime) => Promise<void>,
    options?: Pick<RuntimeOptions, 'adoptingServerSecret'>,
  ): Promise<void>;
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

/** A list as the commands print it (`US, CA`), `none` when empty. */
export const listed = (items: readonly string[]): string => items.join(', ') || 'none';

export const csv = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
