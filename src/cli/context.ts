import { systemClock } from '../clock.ts';
import { loadConfig } from '../config.ts';
import { AppError } from '../errors/app-error.ts';
import { createLogger } from '../logger.ts';
import { openRuntime, type Runtime } from '../runtime.ts';

export type OutputOptions = { json?: boolean };

/** Prints a result as JSON (`--json`) or as the given human text. */
export function output(options: OutputOptions, value: unknown, human: () => string): void {
  process.stdout.write(options.json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

/** Runs one CLI action against a fresh runtime; domain errors become a message and exit code 1. */
export async function withRuntime(action: (rt: Runtime) => Promise<void>): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel ?? 'warn', process.stderr);
  const runtime = await openRuntime(config, systemClock, logger);
  try {
    await action(runtime);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    process.stderr.write(`error: ${error.code}: ${error.message}\n`);
    for (const issue of error.issues ?? [])
      process.stderr.write(`  ${issue.path.join('.')}: ${issue.message}\n`);
    process.exitCode = 1;
  } finally {
    await runtime.close();
  }
}

export const csv = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
