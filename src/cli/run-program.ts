import { type Command, CommanderError } from 'commander';
import type { Cli, CliIo } from './context.ts';
import { describeFailure, printFailure } from './failure.ts';

/** Where the program runs: its output, the database its commands use, and what to do with a fault of ours. */
export type ProgramHost = Pick<Cli, 'io' | 'embeddedDataDir'> & {
  /** A failure that is not the operator's (the server logs it with its stack). */
  onUnexpected?(error: unknown): void;
};

/**
 * Runs the program on `argv` (the words after `main.ts`); returns the exit code: 0 ok, 1 failed, 2 usage. Every
 * failure is reported here, through failure.ts: a sentence on stderr, or with `--json` a JSON object on stdout.
 */
export async function runProgram(program: Command, argv: string[], host: ProgramHost): Promise<number> {
  const { io } = host;
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError && error.exitCode === 0) return io.exitCode; // --help, --version
    const failure = describeFailure(error, { argv, embeddedDataDir: host.embeddedDataDir });
    if (failure.form === 'unexpected') host.onUnexpected?.(error);
    printFailure(failure, argv.includes('--json'), io);
    io.exitCode = failure.exitCode;
  }
  return io.exitCode;
}

/** Output captured for the control socket's answer. */
export function bufferedIo(): CliIo & { stdout: () => string; stderr: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out: (text) => void out.push(text),
    err: (text) => void err.push(text),
    exitCode: 0,
    stdout: () => out.join(''),
    stderr: () => err.join(''),
  };
}
