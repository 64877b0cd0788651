import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alternatedRounds } from './rounds.ts';

describe('alternatedRounds', () => {
  it('runs each round in the other order from the last and keeps every result by name and round', async () => {
    const order: string[] = [];
    const seen: number[] = [];
    const step = (name: 'a' | 'b' | 'c', round: number): ['a' | 'b' | 'c', () => Promise<string>] => [
      name,
      async () => {
        order.push(`${round}${name}`);
        return `${name}@${round}`;
      },
    ];
    const rounds = await alternatedRounds(
      3,
      (i) => [step('a', i), step('b', i), step('c', i)],
      (_, i) => seen.push(i),
    );
    assert.deepEqual(order, ['0a', '0b', '0c', '1c', '1b', '1a', '2a', '2b', '2c']);
    assert.deepEqual(rounds, [
      { a: 'a@0', b: 'b@0', c: 'c@0' },
      { a: 'a@1', b: 'b@1', c: 'c@1' },
      { a: 'a@2', b: 'b@2', c: 'c@2' },
    ]);
    assert.deepEqual(seen, [0, 1, 2]);
  });
});
