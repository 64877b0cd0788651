import type { Clock } from '../clock.ts';
import type { Database } from '../db/index.ts';
import type { ProviderError, ProviderEvent, VoiceProvider } from '../provider/index.ts';
import { fail, ok, providerNotFound, providerUnavailable } from '../provider/index.ts';
import { type InboundCall, inboundSimCall, outboundSimCall } from './simulator-builders.ts';
import { createCallStore, happened, toEvent } from './simulator-calls.ts';
import { testNumber } from './simulator-plan.ts';
import type { Script } from './simulator-script.ts';

export type { InboundCall } from './simulator-builders.ts';

export const PROVIDER_FAULTS = ['none', 'unavailable', 'slow'] as const;
export type ProviderFault = (typeof PROVIDER_FAULTS)[number];

export type SimulatorSettings = {
  fault: ProviderFault;
  /** Delay of every API answer under the `slow` fault. */
  slowMs: number;
  /** How long after a conversation ends its transcript reads as "settling". */
  settleSeconds: number;
  sleep: (ms: number) => Promise<void>;
};

/** What the test numbers that refuse a placement answer (docs/test-mode.md). */
const TEST_REFUSALS: Record<'unavailable' | 'busy', ProviderError> = {
  unavailable: providerUnavailable('Test number: the provider is unavailable.'),
  busy: {
    code: 'busy',
    retryable: true,
    retryAfterSeconds: 5,
    detail: 'Test number: the provider is at its concurrency limit.',
  },
};

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
const CLAIM_BATCH = 100;
/** A claimed call whose instance died is claimed again after this. */
const LEASE_MS = 30_000;
const PURGE_EVERY_MS = 60_000;

/**
 * The built-in provider. Its upstream state lives in the database (`simulator_calls`), as an external system's
 * would outlive us: a call in flight at a restart goes on, its overdue steps delivered at once. It moves on only
 * in `runDue(now)`, so tests drive it with a ManualClock and the server with a 1-second tick; instances of one
 * deployment share the calls of one `account` and claim due ones side by side. API faults (`unavailable`,
 * `slow`) apply to placeCall, getConversation and callEvents, not to the event stream.
 */
export function createSimulator(
  options: { db: Database; clock: Clock; account?: string | undefined } & Partial<SimulatorSettings>,
) {
  const { db, clock, account = 'default', ...overrides } = options;
  const settings: SimulatorSettings = {
    fault: 'none',
    slowMs: 3000,
    settleSeconds: 15,
    sleep: realSleep,
    ...overrides,
  };
  const store = createCallStore({ db, clock, account, settleSeconds: () => settings.settleSeconds });
  let chain: Promise<unknown> = Promise.resolve();
  let purgedAt = Number.NEGATIVE_INFINITY;

  async function gate(): Promise<ProviderError | null> {
    if (settings.fault === 'unavailable') return providerUnavailable('Simulated outage (PROVIDER_FAULT).');
    if (settings.fault === 'slow') await settings.sleep(settings.slowMs);
    return null;
  }

  async function drain(
    now: Date,
    deliver: (event: ProviderEvent) => Promise<unknown>,
    signal: AbortSignal | undefined,
  ): Promise<number> {
    if (now.getTime() - purgedAt >= PURGE_EVERY_MS) {
      await store.purge(now);
      purgedAt = now.getTime();
    }
    let delivered = 0;
    while (!signal?.aborted) {
      const calls = await store.claimDue(now, CLAIM_BATCH, LEASE_MS);
      for (const [index, call] of calls.entries()) {
        // Stopping: the calls not yet begun go back as they were, due for the next run (here or elsewhere).
        if (signal?.aborted) {
          for (const rest of calls.slice(index)) await store.release(rest, rest.nextStep);
          return delivered;
        }
        let next = call.nextStep;
        try {
          // At least once and in order: a step counts as delivered only once the receiver has taken it.
          for (let t = call.timeline[next]; t && t.at <= now; t = call.timeline[next]) {
            await deliver(toEvent(call, t.step, t.at));
            next += 1;
            delivered += 1;
          }
        } catch (err) {
          for (const rest of calls.slice(index))
            await store.release(rest, rest === call ? next : rest.nextStep);
          throw err;
        }
        await store.release(call, next);
      }
      if (calls.length < CLAIM_BATCH) return delivered;
    }
    return delivered;
  }

  const provider: VoiceProvider = {
    async placeCall(request) {
      const fault = await gate();
      if (fault) return fail(fault);
      const test = request.testMode ? testNumber(request.to) : null;
      if (test && 'refused' in test) return fail(TEST_REFUSALS[test.refused]);
      // A call id placed before returns its first placement (the store's unique call_id).
      const { call, steps } = outboundSimCall(request);
      const placed = await store.start(call, steps);
      return ok({ providerCallId: placed.providerCallId });
    },
    async getConversation(conversationId) {
      const fault = await gate();
      return fault ? fail(fault) : store.readConversation(conversationId);
    },
    async callEvents(providerCallId) {
      const fault = await gate();
      if (fault) return fail(fault);
      const call = await store.get(providerCallId);
      if (!call) return fail(providerNotFound(`call ${providerCallId}`));
      return ok(happened(call, clock.now()).map((t) => toEvent(call, t.step, t.at)));
    },
  };

  return {
    ...provider,
    /** Someone calls one of an assistant's numbers (CLI and demo traffic). Returns the provider call id. */
    async simulateInbound(input: InboundCall): Promise<string> {
      const { call, steps } = inboundSimCall(input);
      return (await store.start(call, steps)).providerCallId;
    },
    /**
     * Delivers every step due by `now` to `deliver`, each call's in order. Once `signal` is aborted it finishes
     * the call in hand and returns; the rest stay due.
     */
    runDue(
      now: Date,
      deliver: (event: ProviderEvent) => Promise<unknown>,
      signal?: AbortSignal,
    ): Promise<number> {
      const run = chain.then(() => drain(now, deliver, signal));
      chain = run.catch(() => {});
      return run;
    },
    configure(changes: Partial<SimulatorSettings>): void {
      Object.assign(settings, changes);
    },
    settings: (): Readonly<SimulatorSettings> => ({ ...settings }),
    /** What the simulator made of one of our outbound calls (tests and diagnostics). */
    async inspect(
      callId: string,
    ): Promise<{ providerCallId: string; script: Script; pendingSteps: number } | null> {
      const call = await store.byCallId(callId);
      return call
        ? {
            providerCallId: call.providerCallId,
            script: call.script,
            pendingSteps: call.timeline.length - call.nextStep,
          }
        : null;
    },
    /** How many distinct outbound calls this account placed (a retried placement is not a new one). */
    placementCount: (): Promise<number> => store.countPlaced(),
  };
}

export type Simulator = ReturnType<typeof createSimulator>;
