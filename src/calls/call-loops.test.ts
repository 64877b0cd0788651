import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { startCallLoops } from './call-loops.ts';

/** Lets the promise callbacks of a run settle (mocked timers fire synchronously; promises do not). */
const settle = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};
const logger = { error: () => {}, info: () => {} };
const NOTHING = { checked: 0, applied: 0, lost: 0, retryLater: 0 };

describe("the calls' own schedule", () => {
  beforeEach(() => mock.timers.enable({ apis: ['setInterval'] }));
  afterEach(() => mock.timers.reset());

  it('reconciles at start, then once every RECONCILE_INTERVAL_SECONDS; post-processing every second', async () => {
    let rounds = 0;
    let batches = 0;
    const loops = startCallLoops({
      lifecycle: {
        processDue: async () => {
          batches += 1;
          return 0;
        },
        reconcile: async () => {
          rounds += 1;
          return NOTHING;
        },
      },
      logger,
      reconcileIntervalSeconds: 60,
    });
    await settle();
    assert.deepEqual({ rounds, batches }, { rounds: 1, batches: 0 }, 'a round at start');
    for (let s = 1; s <= 121; s++) {
      mock.timers.tick(1_000);
      await settle();
    }
    assert.deepEqual({ rounds, batches }, { rounds: 3, batches: 121 }, 'at 60 s and 120 s; every second');
    await loops.stop();
  });

  it('stops post-processing in progress after the batch in hand, even with a backlog left', async () => {
    let stopped = false;
    let batchesAfterStop = 0;
    let inBatch!: () => void;
    const started = new Promise<void>((resolve) => {
      inBatch = resolve;
    });
    let release = () => {};
    const loops = startCallLoops({
      lifecycle: {
        // A backlog: every batch is full, so only the stop ends the run.
        processDue: async (limit = 20) => {
          if (stopped) batchesAfterStop += 1;
          inBatch();
          await new Promise<void>((resolve) => {
            release = resolve;
          });
          return limit;
        },
        reconcile: async () => NOTHING,
      },
      logger,
      reconcileIntervalSeconds: 60,
    });
    mock.timers.tick(1_000);
    await started;
    const stopping = loops.stop();
    stopped = true;
    release();
    await stopping;
    assert.equal(batchesAfterStop, 0);
  });
});
