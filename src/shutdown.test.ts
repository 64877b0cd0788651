import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shutDown } from './shutdown.ts';
import { captureLogs } from './testing/log-capture.ts';

describe('shutdown', () => {
  it('runs the steps in order and exits 0', async () => {
    const { logger } = captureLogs();
    const ran: string[] = [];
    const exits: number[] = [];
    await shutDown(
      ['a', 'b', 'c'].map((name) => ({ name, run: async () => void ran.push(name) })),
      { logger, graceMs: 10_000, exit: (code) => exits.push(code), startTimer: () => {} },
    );
    assert.deepEqual(ran, ['a', 'b', 'c']);
    assert.deepEqual(exits, [0]);
  });

  it('exits 1 past its grace and logs the step it was waiting for', async () => {
    const { logger, lines } = captureLogs();
    const exits: number[] = [];
    let fire = () => {};
    void shutDown(
      [
        { name: 'quick', run: async () => {} },
        { name: 'hangs', run: () => new Promise<void>(() => {}) },
      ],
      { logger, graceMs: 10_000, exit: (code) => exits.push(code), startTimer: (_ms, f) => (fire = f) },
    );
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(exits, []);
    fire();
    assert.deepEqual(exits, [1]);
    assert.equal(lines.at(-1)?.waiting_for, 'hangs');
    assert.match(String(lines.at(-1)?.msg), /longer than 10 s/);
  });
});
