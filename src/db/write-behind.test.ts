import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { createWriteBehind } from './write-behind.ts';

const sum = (a: number, b: number) => a + b;

/** `fails(n)`: whether the n-th call to `write` (from 1) fails. */
function recorder(fails: (call: number) => boolean, maxPerWrite?: number) {
  const writes: number[][] = [];
  let calls = 0;
  const wb = createWriteBehind<number>({
    flushMs: 60_000,
    merge: sum,
    write: async (items) => {
      if (fails(++calls)) throw new Error('database down');
      writes.push(items);
    },
    maxPerWrite,
    logger: pino({ level: 'silent' }),
    what: 'test',
  });
  return { wb, writes };
}

/** a..e with 1..5. */
function addFive(wb: ReturnType<typeof recorder>['wb']) {
  for (const [i, key] of ['a', 'b', 'c', 'd', 'e'].entries()) wb.add(key, i + 1);
}

describe('write-behind', () => {
  it('merges items by key and writes them once per flush', async () => {
    const { wb, writes } = recorder(() => false);
    wb.add('a', 1);
    wb.add('a', 2);
    wb.add('b', 10);
    assert.deepEqual([...wb.pending()], [3, 10]);
    await wb.flush();
    await wb.flush();
    assert.deepEqual(writes, [[3, 10]], 'an empty flush writes nothing');
    await wb.stop();
  });

  it('keeps a failed batch and merges what came meanwhile into it for the next flush', async () => {
    const { wb, writes } = recorder((call) => call === 1);
    wb.add('a', 1);
    await wb.flush();
    assert.deepEqual(writes, []);
    wb.add('a', 5);
    wb.add('c', 7);
    await wb.stop();
    assert.deepEqual(writes, [[6, 7]]);
  });

  it('writes at most maxPerWrite items per statement, one statement after another', async () => {
    const { wb, writes } = recorder(() => false, 2);
    addFive(wb);
    await wb.flush();
    assert.deepEqual(writes, [[1, 2], [3, 4], [5]]);
    await wb.stop();
  });

  it('after a failed statement keeps its items and the ones not written yet, not the ones written', async () => {
    const { wb, writes } = recorder((call) => call === 2, 2);
    addFive(wb);
    await wb.flush();
    assert.deepEqual(writes, [[1, 2]], 'the second statement failed; the third was not tried');
    assert.deepEqual([...wb.pending()], [3, 4, 5]);
    wb.add('c', 30);
    wb.add('f', 6);
    await wb.stop();
    assert.deepEqual(writes, [
      [1, 2],
      [33, 4],
      [5, 6],
    ]);
  });

  it('sends each statement through its lane when it has one, but not at shutdown', async () => {
    const order: string[] = [];
    const wb = createWriteBehind<number>({
      flushMs: 60_000,
      merge: sum,
      write: async (items) => {
        order.push(`write ${items.join(',')}`);
      },
      maxPerWrite: 2,
      lane: {
        run: async (write) => {
          order.push('lane');
          return write();
        },
      },
      logger: pino({ level: 'silent' }),
      what: 'test',
    });
    wb.add('a', 1);
    wb.add('b', 2);
    wb.add('c', 3);
    await wb.flush();
    assert.deepEqual(order, ['lane', 'write 1,2', 'lane', 'write 3']);
    wb.add('d', 4);
    await wb.stop();
    assert.deepEqual(order.slice(4), ['write 4'], 'the shutdown flush does not wait for rests');
  });
});
