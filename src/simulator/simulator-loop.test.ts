import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { ManualClock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import type { ProviderEvent } from '../provider/interface.ts';
import { type SimulatedWorld, startSimulatorLoop } from './simulator-loop.ts';

const settle = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};
const logger = { error: () => {}, warn: () => {} };
const config = {
  providerFault: 'none' as const,
  providerSlowMs: 3000,
  providerSettleSeconds: 15,
  demoInboundCallsPerMinute: 0,
};

/** The loop over a simulator whose `runDue` is given and calls that apply events with `applyProviderEvent`. */
const startWith = (
  runDue: SimulatedWorld['simulator']['runDue'],
  lifecycle: SimulatedWorld['lifecycle'],
  clock = new ManualClock('2026-03-01T10:00:00.000Z'),
) =>
  startSimulatorLoop(
    {
      db: {} as Database,
      world: { simulator: { configure: () => {}, simulateInbound: async () => 'unused', runDue }, lifecycle },
      config,
      clock,
      logger,
    },
    { demo: false },
  );

describe("the simulator's tick", () => {
  beforeEach(() => mock.timers.enable({ apis: ['setInterval'] }));
  afterEach(() => mock.timers.reset());

  it('delivers the steps due by the clock to the calls every second, and nothing else', async () => {
    const clock = new ManualClock('2026-03-01T10:00:00.000Z');
    const asked: Date[] = [];
    const applied: ProviderEvent[] = [];
    const event = { type: 'call.answered' } as ProviderEvent;
    const loop = startWith(
      async (now, deliver) => {
        asked.push(now);
        await deliver(event);
        return 1;
      },
      {
        applyProviderEvent: async (e) => {
          applied.push(e);
          return 'applied';
        },
        processDue: async () => assert.fail('post-processing is the calls module’s own loop'),
      },
      clock,
    );
    await settle();
    assert.equal(asked.length, 0, 'not before the first second');
    clock.advance(1_000);
    mock.timers.tick(1_000);
    await settle();
    assert.deepEqual(asked, [clock.now()]);
    assert.deepEqual(applied, [event]);
    await loop.stop();
  });

  it('stops a tick in progress: the simulator is told to stop, and the stop waits for it', async () => {
    let tickSignal: AbortSignal | undefined;
    let tickStarted!: () => void;
    const started = new Promise<void>((resolve) => {
      tickStarted = resolve;
    });
    let ended = false;
    const loop = startWith(
      // A backlog that only ends when it is told to stop.
      (_now, _deliver, signal) =>
        new Promise<number>((resolve) => {
          tickSignal = signal;
          tickStarted();
          signal?.addEventListener('abort', () => {
            ended = true;
            resolve(0);
          });
        }),
      { applyProviderEvent: async () => 'applied', processDue: async () => 0 },
    );
    mock.timers.tick(1_000);
    await started;
    await loop.stop();
    assert.equal(tickSignal?.aborted, true);
    assert.equal(ended, true);
  });
});
