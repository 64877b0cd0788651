import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { createLogger } from '../logger.ts';
import { startProviderDriver, type VoiceParts } from './driver.ts';

describe('the provider driver', () => {
  it('stops a tick in progress: the tick is told to stop, and no post-processing batch starts after', async () => {
    let tickSignal: AbortSignal | undefined;
    let tickStarted!: () => void;
    const started = new Promise<void>((resolve) => {
      tickStarted = resolve;
    });
    let batchesAfterStop = 0;
    // A tick with a backlog that only ends when it is told to stop.
    const parts = {
      simulator: {
        runDue: (_now: Date, _deliver: unknown, signal?: AbortSignal) =>
          new Promise<number>((resolve) => {
            tickSignal = signal;
            tickStarted();
            signal?.addEventListener('abort', () => resolve(0));
          }),
      },
      lifecycle: {
        processDue: async () => {
          if (tickSignal?.aborted) batchesAfterStop += 1;
          return 0;
        },
        reconcile: async () => ({ checked: 0, applied: 0, lost: 0, retryLater: 0 }),
      },
    } as unknown as VoiceParts;
    const driver = startProviderDriver({
      db: {} as Database,
      parts,
      clock: new ManualClock('2026-03-01T10:00:00.000Z'),
      logger: createLogger('silent'),
      intervalMs: 1,
    });
    await started;
    await driver.stop();
    assert.equal(tickSignal?.aborted, true);
    assert.equal(batchesAfterStop, 0);
  });
});
