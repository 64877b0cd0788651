import { type Command, CommanderError } from 'commander';
import type { CliIo } from './context.ts';

/**
 * Errors whose message is written for the operator as it stands (an invalid configuration, a data folder held
 * by another process or that cannot be made private). Matched by name: importing config.ts to test `instanceof`
 * would load zod on every run.
 */
const PLAIN_ERRORS = new Set(['ConfigError', 'DataDirLockedError', 'DataDirUnsafeError']);

/** Runs the program on `argv` (the words after `main.ts`); returns the exit code: 0 ok, 1 failed, 2 usage. */
export async function runProgram(program: Command, argv: string[], io: CliIo): Promise<number> {
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      io.exitCode = error.exitCode === 0 ? 0 : 2;
    } else if (error instanceof Error && PLAIN_ERRORS.has(error.constructor.name)) {
      io.err(`${error.message}\n`);
      io.exitCode = 1;
    } else {
      io.err(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      io.exitCode = 1;
    }
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
