import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { type LoopLogger, startLoop } from './loop.ts';

/** Lets the promise callbacks of a run settle (mocked timers fire synchronously; promises do not). */
const settle = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

function recorder(): LoopLogger & { lines: { obj: object; msg: string }[] } {
  const lines: { obj: object; msg: string }[] = [];
  return { lines, error: (obj, msg) => lines.push({ obj, msg }) };
}

describe('startLoop: the one way to run background work', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setInterval'] }));
  afterEach(() => mock.timers.reset());

  it('runs every interval, and at start only when asked', async () => {
    let runs = 0;
    const logger = recorder();
    const loop = startLoop({ name: 'count', intervalMs: 1_000, logger }, async () => {
      runs += 1;
    });
    await settle();
    assert.equal(runs, 0, 'not at start by default');
    for (let i = 0; i < 3; i++) {
      mock.timers.tick(1_000);
      await settle();
    }
    assert.equal(runs, 3);
    await loop.stop();

    let atStart = 0;
    const eager = startLoop({ name: 'eager', intervalMs: 1_000, runAtStart: true, logger }, async () => {
      atStart += 1;
    });
    await settle();
    assert.equal(atStart, 1, 'at once when asked');
    await eager.stop();
    assert.deepEqual(logger.lines, []);
  });

  it('never overlaps: a run that outlasts the interval makes the ticks it covers skipped, not queued', async () => {
    let started = 0;
    let finish = () => {};
    const loop = startLoop({ name: 'slow', intervalMs: 100, logger: recorder() }, () => {
      started += 1;
      return new Promise<void>((resolve) => {
        finish = resolve;
      });
    });
    mock.timers.tick(100);
    await settle();
    assert.equal(started, 1);
    mock.timers.tick(500); // five ticks while the first run is still going
    await settle();
    assert.equal(started, 1, 'no second run while the first goes on');
    finish();
    await settle();
    mock.timers.tick(100);
    await settle();
    assert.equal(started, 2, 'the next tick after it runs again, once');
    finish();
    await loop.stop();
  });

  it('logs a failed run under the loop name and tries again at the next tick', async () => {
    const logger = recorder();
    let runs = 0;
    const loop = startLoop({ name: 'flaky check', intervalMs: 100, logger }, async () => {
      runs += 1;
      if (runs === 1) throw new Error('boom');
    });
    mock.timers.tick(100);
    await settle();
    assert.equal(logger.lines.length, 1);
    const [line] = logger.lines;
    assert.equal(line?.msg, 'flaky check failed');
    const obj = (line?.obj ?? {}) as { loop?: string; err?: Error };
    assert.equal(obj.loop, 'flaky check');
    assert.equal(obj.err?.message, 'boom');
    mock.timers.tick(100);
    await settle();
    assert.equal(runs, 2);
    assert.equal(logger.lines.length, 1, 'the second run succeeded');
    await loop.stop();
  });

  it('stop aborts the run in progress, waits for it, and nothing runs after', async () => {
    let seen: AbortSignal | null = null;
    let finish = () => {};
    let runs = 0;
    const loop = startLoop({ name: 'stoppable', intervalMs: 100, logger: recorder() }, (signal) => {
      runs += 1;
      seen = signal;
      return new Promise<void>((resolve) => {
        finish = resolve;
      });
    });
    mock.timers.tick(100);
    await settle();
    let stopped = false;
    const stopping = loop.stop().then(() => {
      stopped = true;
    });
    await settle();
    assert.equal((seen as AbortSignal | null)?.aborted, true, 'the run is told to stop');
    assert.equal(stopped, false, 'stop waits for the run in progress');
    finish();
    await stopping;
    assert.equal(stopped, true);
    mock.timers.tick(1_000);
    await settle();
    assert.equal(runs, 1, 'no run after stop');
  });
});
