import { randomInboundTarget } from '../assistants/index.ts';
import type { LifecycleService } from '../calls/index.ts';
import { processAllDue } from '../calls/index.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/index.ts';
import { type Loop, type LoopLogger, startLoop } from '../loop.ts';
import { randomNanpNumber } from '../provider/index.ts';
import type { SmsService } from '../sms/index.ts';
import type { Simulator } from './simulator.ts';
import type { SmsSimulator } from './sms-simulator.ts';

/** The simulator and the calls it reports to; its SMS carrier and the messages it reports to. */
export type SimulatedWorld = {
  simulator: Pick<Simulator, 'runDue' | 'simulateInbound'>;
  lifecycle: Pick<LifecycleService, 'applyProviderEvent' | 'processDue'>;
  /** Absent in worlds that play calls only (the demo's generated history, some tests). */
  smsSimulator?: Pick<SmsSimulator, 'runDue'>;
  sms?: Pick<SmsService, 'inbox'>;
};

/** Demo traffic when the entry point does not say otherwise (DEMO_INBOUND_CALLS_PER_MINUTE). */
export const DEMO_INBOUND_CALLS_PER_MINUTE = 2;
const TICK_MS = 1_000;
const CALLER_NAMES = ['Maria Garcia', 'James Smith', 'Wei Chen', 'Aisha Khan', 'Liam Tremblay', null];

async function deliverTo(world: SimulatedWorld, now: Date, signal?: AbortSignal): Promise<number> {
  const events = await world.simulator.runDue(
    now,
    (event) => world.lifecycle.applyProviderEvent(event),
    signal,
  );
  if (!world.sms || !world.smsSimulator) return events;
  const inbox = world.sms.inbox('simulator');
  return events + (await world.smsSimulator.runDue(now, (report) => inbox.statusReported(report)));
}

/**
 * One step of the world at once, for tests and `calls simulate-inbound` (which move a ManualClock): the simulator's
 * transitions due by `now` become our call records, then every due post-processing runs. In the server the two
 * are separate loops (the simulator's tick below, the calls' own schedule).
 */
export async function runProviderTick(
  world: SimulatedWorld,
  now: Date,
  signal?: AbortSignal,
): Promise<{ events: number; finished: number }> {
  const events = await deliverTo(world, now, signal);
  const finished = await processAllDue(world.lifecycle, signal);
  return { events, finished };
}

/** A stranger calls a random active assistant (demo traffic). False when no assistant can take calls. */
async function ringRandomAssistant(db: Database, simulator: SimulatedWorld['simulator']): Promise<boolean> {
  const target = await randomInboundTarget(db);
  const to = target?.phone_numbers[0];
  if (!target || !to) return false;
  await simulator.simulateInbound({
    assistantId: target.id,
    to,
    from: randomNanpNumber(Math.random),
    callerName: CALLER_NAMES[Math.floor(Math.random() * CALLER_NAMES.length)] ?? null,
    language: target.language,
  });
  return true;
}

/**
 * The simulator's clock in the server process: applies the provider settings of the configuration, then every
 * second rings assistants at DEMO_INBOUND_CALLS_PER_MINUTE (demo mode: 2 unless said) and delivers the steps due
 * by the real clock to the calls (undelivered ones stay queued for the next tick). Stop it before closing the
 * database.
 */
export function startSimulatorLoop(
  deps: {
    db: Database;
    world: SimulatedWorld & { simulator: Pick<Simulator, 'configure'> };
    config: Pick<
      Config,
      'providerFault' | 'providerSlowMs' | 'providerSettleSeconds' | 'demoInboundCallsPerMinute'
    >;
    clock: Clock;
    logger: LoopLogger & { warn(obj: object, msg: string): void };
    intervalMs?: number;
  },
  options: { demo: boolean },
): Loop {
  const { config, world, logger } = deps;
  world.simulator.configure({
    fault: config.providerFault,
    slowMs: config.providerSlowMs,
    settleSeconds: config.providerSettleSeconds,
  });
  if (config.providerFault !== 'none')
    logger.warn({ fault: config.providerFault }, 'provider fault injected');
  const intervalMs = deps.intervalMs ?? TICK_MS;
  const inboundPerMinute =
    config.demoInboundCallsPerMinute ?? (options.demo ? DEMO_INBOUND_CALLS_PER_MINUTE : 0);
  let credit = 0;
  return startLoop({ name: 'simulator tick', intervalMs, logger }, async (signal) => {
    credit += (inboundPerMinute * intervalMs) / 60_000;
    for (; credit >= 1; credit -= 1) await ringRandomAssistant(deps.db, world.simulator);
    await deliverTo(world, deps.clock.now(), signal);
  });
}
