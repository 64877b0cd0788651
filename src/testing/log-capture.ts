import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { createLogger } from '../logger.ts';

/** A logger whose lines are kept, parsed, for tests that check what was (not) logged. */
export function captureLogs(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger(
    'info',
    new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    }),
  );
  return { logger, lines };
}
