import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../logger.ts';
import { createBacklogWatch, type OutboxStats } from './outbox-backlog.ts';

function watching(threshold: number) {
  const lines: { level: number; msg: string }[] = [];
  let stats: OutboxStats = { due: 0, oldestDueSeconds: 0 };
  const watch = createBacklogWatch({
    read: async () => stats,
    thresholdSeconds: threshold,
    logger: createLogger('info', { write: (line: string) => lines.push(JSON.parse(line)) }),
  });
  return {
    watch,
    lines,
    set: (s: OutboxStats) => {
      stats = s;
    },
  };
}

describe('the webhook outbox backlog watch', () => {
  it('warns (log and readiness) only while the oldest due delivery is older than the threshold', async () => {
    const cases: [OutboxStats, boolean][] = [
      [{ due: 0, oldestDueSeconds: 0 }, false],
      [{ due: 5_000, oldestDueSeconds: 60 }, false],
      [{ due: 5_000, oldestDueSeconds: 60.5 }, true],
      [{ due: 1, oldestDueSeconds: 3_600 }, true],
    ];
    for (const [stats, warned] of cases) {
      const w = watching(60);
      w.set(stats);
      await w.watch.check();
      assert.equal(w.watch.warning() !== null, warned, JSON.stringify(stats));
      assert.equal(
        w.lines.some((l) => l.level === 40),
        warned,
        JSON.stringify(stats),
      );
    }
  });

  it('names the depth and age, and clears once it has caught up, saying so once', async () => {
    const w = watching(60);
    w.set({ due: 12_345, oldestDueSeconds: 95.4 });
    await w.watch.check();
    assert.equal(
      w.watch.warning(),
      'webhook outbox behind: 12345 deliveries due, the oldest for 95 s (threshold 60 s)',
    );
    w.set({ due: 10, oldestDueSeconds: 1 });
    await w.watch.check();
    await w.watch.check();
    assert.equal(w.watch.warning(), null);
    assert.deepEqual(
      w.lines.map((l) => l.msg),
      [
        'webhook outbox is behind: deliveries are due faster than the workers send them',
        'webhook outbox has caught up',
      ],
    );
  });
});
