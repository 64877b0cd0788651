import type { Clock } from '../clock.ts';
import { fail, ok, providerUnavailable } from './errors.ts';
import type { ProviderError, ProviderEvent, VoiceProvider } from './interface.ts';
import { type InboundCall, inboundSimCall, outboundSimCall } from './simulator-builders.ts';
import { createCallStore } from './simulator-calls.ts';
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

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
const PLACEMENT_DEDUPE_MS = 48 * 3600_000;

/**
 * The built-in provider: upstream state in memory (it stands in for an external system), moved on
 * only by `runDue(now)`, so tests drive it with a ManualClock and the server with a 1-second tick.
 * API faults (`unavailable`, `slow`) apply to placeCall and getConversation, not to the event stream.
 */
export function createSimulator(options: { clock: Clock } & Partial<SimulatorSettings>) {
  const { clock, ...overrides } = options;
  const settings: SimulatorSettings = {
    fault: 'none',
    slowMs: 3000,
    settleSeconds: 15,
    sleep: realSleep,
    ...overrides,
  };
  const store = createCallStore(clock, () => settings.settleSeconds);
  const placed = new Map<string, { providerCallId: string; at: number }>();
  const outbox: ProviderEvent[] = [];
  let chain: Promise<unknown> = Promise.resolve();

  async function gate(): Promise<ProviderError | null> {
    if (settings.fault === 'unavailable') return providerUnavailable('Simulated outage (PROVIDER_FAULT).');
    if (settings.fault === 'slow') await settings.sleep(settings.slowMs);
    return null;
  }

  async function drain(now: Date, deliver: (event: ProviderEvent) => Promise<unknown>): Promise<number> {
    for (const [callId, p] of placed) if (p.at < now.getTime() - PLACEMENT_DEDUPE_MS) placed.delete(callId);
    outbox.push(...store.takeDue(now));
    let delivered = 0;
    // At least once and in order: an event leaves the queue only once the receiver has taken it.
    for (let event = outbox[0]; event; event = outbox[0]) {
      await deliver(event);
      outbox.shift();
      delivered += 1;
    }
    return delivered;
  }

  const provider: VoiceProvider = {
    async placeCall(request) {
      const fault = await gate();
      if (fault) return fail(fault);
      const existing = placed.get(request.callId);
      if (existing) return ok({ providerCallId: existing.providerCallId });
      const { call, steps } = outboundSimCall(request);
      const { providerCallId } = store.start(call, steps);
      placed.set(request.callId, { providerCallId, at: clock.now().getTime() });
      return ok({ providerCallId });
    },
    async getConversation(conversationId) {
      const fault = await gate();
      return fault ? fail(fault) : store.readConversation(conversationId);
    },
  };

  return {
    ...provider,
    /** Someone calls one of an assistant's numbers (CLI and demo traffic). Returns the provider call id. */
    simulateInbound(input: InboundCall): string {
      const { call, steps } = inboundSimCall(input);
      return store.start(call, steps).providerCallId;
    },
    /** Applies every transition due by `now` and hands the resulting events to `deliver`, in order. */
    runDue(now: Date, deliver: (event: ProviderEvent) => Promise<unknown>): Promise<number> {
      const run = chain.then(() => drain(now, deliver));
      chain = run.catch(() => {});
      return run;
    },
    configure(changes: Partial<SimulatorSettings>): void {
      Object.assign(settings, changes);
    },
    settings: (): Readonly<SimulatorSettings> => ({ ...settings }),
    /** What the simulator made of one of our outbound calls (tests and diagnostics). */
    inspect(callId: string): { providerCallId: string; script: Script; pendingSteps: number } | null {
      const p = placed.get(callId);
      const call = p ? store.get(p.providerCallId) : undefined;
      return call
        ? { providerCallId: call.providerCallId, script: call.script, pendingSteps: call.timeline.length }
        : null;
    },
    /** How many distinct outbound calls were placed (a retried placement is not a new one). */
    placementCount: (): number => placed.size,
  };
}

export type Simulator = ReturnType<typeof createSimulator>;
