import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger } from './logger.ts';
import { shutDown } from './shutdown.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger(
    'info',
    new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    }),
  );
  return { logger, lines };
}

describe('shutdown', () => {
  it('runs the steps in order and exits 0', async () => {
    const { logger } = capture();
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
    const { logger, lines } = capture();
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
