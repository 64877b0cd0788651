import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { createWriteBehind } from './write-behind.ts';

const sum = (a: number, b: number) => a + b;

function recorder(failFirst: number) {
  const writes: number[][] = [];
  let failures = failFirst;
  const wb = createWriteBehind<number>({
    flushMs: 60_000,
    merge: sum,
    write: async (items) => {
      if (failures-- > 0) throw new Error('database down');
      writes.push(items);
    },
    logger: pino({ level: 'silent' }),
    what: 'test',
  });
  return { wb, writes };
}

describe('write-behind', () => {
  it('merges items by key and writes them in one call per flush', async () => {
    const { wb, writes } = recorder(0);
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
    const { wb, writes } = recorder(1);
    wb.add('a', 1);
    await wb.flush();
    assert.deepEqual(writes, []);
    wb.add('a', 5);
    wb.add('c', 7);
    await wb.stop();
    assert.deepEqual(writes, [[6, 7]]);
  });
});
