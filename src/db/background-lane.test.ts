import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createBackgroundLane } from './background-lane.ts';

/** A lane on a hand-moved clock whose rests wait until `endRests` is called; `log` records what happened in order. */
function laneOnHandClock(busyShare: number) {
  let t = 0;
  const log: string[] = [];
  const resting: (() => void)[] = [];
  const lane = createBackgroundLane({
    busyShare,
    now: () => t,
    sleep: (ms) => {
      log.push(`rest ${ms}`);
      return new Promise<void>((resolve) => resting.push(resolve));
    },
  });
  /** A write that takes `ms` on the hand clock. */
  const write = (name: string, ms: number, fails = false) =>
    lane.run(async () => {
      log.push(`start ${name}`);
      t += ms;
      if (fails) throw new Error(`${name} failed`);
      return name;
    });
  const endRests = async () => {
    await new Promise((r) => setImmediate(r));
    for (const end of resting.splice(0)) end();
    await new Promise((r) => setImmediate(r));
  };
  return { write, log, endRests };
}

describe('background lane', () => {
  it('runs writes one at a time, each after the rest of the one before it (busy share 0.2: rest 4× its time)', async () => {
    const { write, log, endRests } = laneOnHandClock(0.2);
    const first = write('a', 10);
    const second = write('b', 3);
    assert.equal(await first, 'a', 'the caller gets its answer when its write is done, not after the rest');
    await endRests();
    assert.equal(await second, 'b');
    await endRests();
    assert.deepEqual(log, ['start a', 'rest 40', 'start b', 'rest 12']);
  });

  it('does not start the next write while the rest lasts', async () => {
    const { write, log, endRests } = laneOnHandClock(0.5);
    await write('a', 6);
    let secondDone = false;
    const second = write('b', 1).then(() => {
      secondDone = true;
    });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(log, ['start a', 'rest 6'], 'b waits for the rest');
    assert.equal(secondDone, false);
    await endRests();
    await second;
    assert.deepEqual(log, ['start a', 'rest 6', 'start b', 'rest 1']);
  });

  it('a failed write rejects for its caller, rests all the same, and the lane goes on', async () => {
    const { write, log, endRests } = laneOnHandClock(0.5);
    const failed = write('a', 2, true);
    const next = write('b', 1);
    await assert.rejects(failed, /a failed/);
    await endRests();
    assert.equal(await next, 'b');
    assert.deepEqual(log, ['start a', 'rest 2', 'start b', 'rest 1']);
  });

  it('with a busy share of 1 it never rests', async () => {
    const { write, log, endRests } = laneOnHandClock(1);
    assert.equal(await write('a', 5), 'a');
    const second = write('b', 5);
    await endRests();
    assert.equal(await second, 'b');
    await endRests();
    assert.deepEqual(log, ['start a', 'rest 0', 'start b', 'rest 0']);
  });
});
