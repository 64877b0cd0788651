import type { Logger } from 'pino';
import type { Database } from '../db/index.ts';
import type { AttemptOutcome } from './attempts.repository.ts';
import { completeAttempts, type Disabled } from './complete-attempts.ts';

export type CompletionBuffer = {
  add(outcome: AttemptOutcome): void;
  /** Writes everything added so far, after any write in progress. Never rejects. */
  flush(): Promise<void>;
  /** Outcomes added and not yet written (waiting, or in the write in progress). */
  unrecorded(): number;
};

/**
 * Group commit for finished attempts: they are written in batches, one transaction each, when `maxBatch`
 * are waiting or `maxDelayMs` after the first, one batch at a time (the next one grows while a write runs).
 * A batch that cannot be written is logged and dropped: its deliveries keep their leases and are
 * claimed again when the leases run out, so a receiver may get them twice (at-least-once), never zero times.
 */
export function createCompletionBuffer(o: {
  db: Database;
  logger: Logger;
  maxBatch: number;
  maxDelayMs: number;
  onWritten(outcomes: AttemptOutcome[], disabled: Disabled[]): void;
  /** After every write, written or dropped. */
  onSettled(): void;
}): CompletionBuffer {
  let waiting: AttemptOutcome[] = [];
  let writing = 0;
  let timer: NodeJS.Timeout | null = null;
  let writes: Promise<void> = Promise.resolve();
  let queued = false;

  async function write() {
    queued = false;
    const batch = waiting;
    waiting = [];
    if (batch.length === 0) return;
    writing = batch.length;
    let disabled: Disabled[];
    try {
      disabled = await completeAttempts(o.db, batch);
    } catch (err) {
      o.logger.error(
        { err, deliveries: batch.length },
        'webhook attempts not recorded; their deliveries are retried when their leases end',
      );
      return;
    } finally {
      writing = 0;
      o.onSettled();
    }
    o.onWritten(batch, disabled);
  }

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!queued) {
      queued = true;
      writes = writes
        .then(write)
        .catch((err: unknown) => o.logger.error({ err }, 'webhook completion failed'));
    }
    return writes;
  }

  return {
    add(outcome) {
      waiting.push(outcome);
      if (waiting.length >= o.maxBatch) void flush();
      else timer ??= setTimeout(flush, o.maxDelayMs);
    },
    flush,
    unrecorded: () => waiting.length + writing,
  };
}
