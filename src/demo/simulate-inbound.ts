import { inboundTargets } from '../assistants/index.ts';
import { callListeners } from '../call-listeners.ts';
import { callIdForProviderCall, createLifecycleService, findCall } from '../calls/index.ts';
import { ManualClock } from '../clock.ts';
import type { Database } from '../db/index.ts';
import { AppError, invalidInput } from '../errors/index.ts';
import { newUuid } from '../ids.ts';
import { guardProvider, randomNanpNumber } from '../provider/index.ts';
import { createSimulator, runProviderTick } from '../simulator/index.ts';
import { createTranscriptsService } from '../transcripts/index.ts';

export const MAX_SIMULATED_CALLS = 500;
const SPACING_MS = 20_000;
/** Longer than any simulated call (ringing, 600 s of conversation, settling), so every call is over by now. */
const TAIL_MS = 15 * 60_000;

export type SimulatedCall = {
  id: string;
  assistant_id: string;
  status: string;
  started_at: string;
  from_number: string;
};

/**
 * Inbound calls for the operator CLI: a simulator of its own on a clock that runs from the recent
 * past to `now`, so the calls arrive finished, post-processed (events recorded) and with stored
 * transcripts, exactly as the server would have recorded them.
 */
export async function simulateInboundCalls(
  db: Database,
  o: { customerId: string; assistantId?: string; count: number; now: Date },
): Promise<SimulatedCall[]> {
  if (!Number.isInteger(o.count) || o.count < 1 || o.count > MAX_SIMULATED_CALLS) {
    throw invalidInput([
      { path: ['count'], message: `Must be a whole number from 1 to ${MAX_SIMULATED_CALLS}.` },
    ]);
  }
  const targets = (await inboundTargets(db, o.customerId)).filter(
    (a) => !o.assistantId || a.id === o.assistantId.toLowerCase(),
  );
  if (targets.length === 0) {
    throw new AppError(
      'resource.not_found',
      o.assistantId
        ? 'Assistant not found among the customer’s active assistants with a phone number.'
        : 'The customer has no active assistant with a phone number.',
    );
  }
  const start = o.now.getTime() - o.count * SPACING_MS - TAIL_MS;
  const clock = new ManualClock(new Date(start));
  // An account of its own: calls made in the past, driven to their end here, never by a running server.
  const simulator = createSimulator({ db, clock, account: `history_${newUuid()}` });
  const provider = guardProvider(simulator);
  const parts = {
    simulator,
    lifecycle: createLifecycleService({ db, clock, provider, reports: callListeners() }),
  };
  const providerIds: string[] = [];
  for (let i = 0; i < o.count; i++) {
    clock.set(new Date(start + i * SPACING_MS));
    const target = targets[i % targets.length];
    if (!target) continue;
    providerIds.push(
      await simulator.simulateInbound({
        assistantId: target.id,
        to: target.phone_numbers[0] ?? '',
        from: randomNanpNumber(Math.random),
        callerName: null,
        language: target.language,
      }),
    );
    await runProviderTick(parts, clock.now());
  }
  clock.set(o.now);
  await runProviderTick(parts, clock.now());
  const transcripts = createTranscriptsService({ db, clock, provider });
  const made: SimulatedCall[] = [];
  for (const providerCallId of providerIds) {
    const id = await callIdForProviderCall(db, providerCallId);
    const call = id ? await findCall(db, id) : undefined;
    if (!call) continue;
    await transcripts.fetchAndStore(o.customerId, call.id);
    made.push({
      id: call.id,
      assistant_id: call.assistant_id,
      status: call.status,
      started_at: call.started_at.toISOString(),
      from_number: call.from_number,
    });
  }
  return made;
}
