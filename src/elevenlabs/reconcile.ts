import type { LifecycleService } from '../calls/index.ts';
import {
  applyProviderEvents,
  knowsProviderCall,
  recordLateProviderCall,
  unconfirmedPlacements,
} from '../calls/index.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/index.ts';
import { type Loop, type LoopLogger, startLoop } from '../loop.ts';
import type { ElevenLabsProvider } from './adapter.ts';
import { linkedAgents } from './agent-links.repository.ts';

/** How far back each pass looks for conversations we never heard of (a lost or refused webhook). */
export const RECONCILE_LOOKBACK_SECONDS = 2 * 3600;
/** An unconfirmed placement is looked up once its own request must be over (PROVIDER_TIMEOUT_MS is at most 120 s). */
export const UNCONFIRMED_AFTER_SECONDS = 150;
const UNCONFIRMED_BATCH = 100;

export type ElevenLabsReconcileDeps = {
  db: Database;
  provider: ElevenLabsProvider;
  lifecycle: LifecycleService;
  clock: Clock;
};

/**
 * Inbound calls we missed: every linked agent's conversations started in the look-back window
 * (`GET /v1/convai/conversations?agent_id=…&call_start_after_unix=…`, every cursor page); each one we do not know
 * is read (`GET /v1/convai/conversations/{id}`) and its events applied, which creates an inbound call (an outbound
 * conversation of a call we do not have stays unknown). Returns how many conversations were new to us. Once
 * `signal` is aborted (the server is stopping) it ends after the request in hand; the next pass finds the rest.
 */
export async function reconcileMissedCalls(
  deps: ElevenLabsReconcileDeps,
  signal?: AbortSignal,
): Promise<number> {
  const after = Math.floor(deps.clock.now().getTime() / 1000) - RECONCILE_LOOKBACK_SECONDS;
  const agentIds = new Set((await linkedAgents(deps.db)).map((l) => l.agent_id));
  let found = 0;
  for (const agentId of agentIds) {
    if (signal?.aborted) return found;
    const listed = await deps.provider.conversationsSince(agentId, after);
    if (!listed.ok) continue;
    for (const id of listed.value) {
      if (signal?.aborted) return found;
      if (await knowsProviderCall(deps.db, id)) continue;
      const events = await deps.provider.callEvents(id);
      if (!events.ok) continue;
      const outcomes = await applyProviderEvents(deps.lifecycle, events.value);
      if (outcomes.includes('applied')) found += 1;
    }
  }
  return found;
}

/**
 * Placements that timed out stay queued without a provider handle: look each up by our call id (its `user_id`
 * upstream); one ElevenLabs did start gets its handle and its events. One it never started is left to the
 * calls' own reconciliation, which ends it (`placement_lost`). Returns how many were found. Once `signal` is
 * aborted it ends after the placement in hand.
 */
export async function resolveUnconfirmedPlacements(
  deps: ElevenLabsReconcileDeps,
  signal?: AbortSignal,
): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - UNCONFIRMED_AFTER_SECONDS * 1000);
  const agentOf = new Map((await linkedAgents(deps.db)).map((l) => [l.assistant_id, l.agent_id]));
  const placements = await unconfirmedPlacements(deps.db, {
    assistantIds: [...agentOf.keys()],
    before,
    limit: UNCONFIRMED_BATCH,
  });
  let found = 0;
  for (const row of placements) {
    if (signal?.aborted) return found;
    const agentId = agentOf.get(row.assistant_id);
    if (!agentId) continue;
    const placed = await deps.provider.findPlacement(agentId, row.call_id);
    if (!placed.ok || !placed.value) continue;
    const conversationId = placed.value;
    if (!(await recordLateProviderCall(deps.db, row.call_id, conversationId, deps.clock.now()))) continue;
    found += 1;
    const events = await deps.provider.callEvents(conversationId);
    if (events.ok) await applyProviderEvents(deps.lifecycle, events.value);
  }
  return found;
}

/**
 * Both passes every `intervalSeconds` (RECONCILE_INTERVAL_SECONDS) in the server process, beside the calls' own
 * reconciliation; never overlapping.
 */
export function startElevenLabsReconciliation(
  deps: ElevenLabsReconcileDeps & { logger: LoopLogger; intervalSeconds: number },
): Loop {
  return startLoop(
    { name: 'ElevenLabs reconciliation', intervalMs: deps.intervalSeconds * 1000, logger: deps.logger },
    async (signal) => {
      await resolveUnconfirmedPlacements(deps, signal);
      await reconcileMissedCalls(deps, signal);
    },
  );
}
