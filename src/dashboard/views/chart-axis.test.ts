import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { axisTicks } from './chart-axis.ts';

describe('chart y-axis ticks', () => {
  it('are whole, distinct and reach the top, in at most four steps', () => {
    const cases: [number, number[]][] = [
      [0, [0, 1]],
      [0.4, [0, 1]],
      [1, [0, 1]],
      [2, [0, 1, 2]],
      [3, [0, 1, 2, 3]],
      [4, [0, 1, 2, 3, 4]],
      [5, [0, 2, 4, 6]],
      [7.5, [0, 2, 4, 6, 8]],
      [9, [0, 5, 10]],
      [41, [0, 20, 40, 60]],
      [100, [0, 25, 50, 75, 100]],
      [1234, [0, 500, 1000, 1500]],
    ];
    for (const [top, ticks] of cases) assert.deepEqual(axisTicks(top), ticks, `top ${top}`);
  });

  it('hold for any top: integers, strictly increasing, from 0, the last at or above the top', () => {
    for (let top = 0; top <= 5000; top += top < 50 ? 0.5 : 37) {
      const ticks = axisTicks(top);
      assert.equal(ticks[0], 0);
      assert.ok(ticks.length >= 2 && ticks.length <= 5, `top ${top}: ${ticks}`);
      assert.ok((ticks.at(-1) ?? 0) >= top, `top ${top}: ${ticks}`);
      for (let i = 1; i < ticks.length; i++) {
        assert.ok(Number.isInteger(ticks[i]), `top ${top}: ${ticks}`);
        assert.ok((ticks[i] ?? 0) > (ticks[i - 1] ?? 0), `top ${top}: ${ticks}`);
      }
    }
  });
});
