import { linkedAgentIds } from './agent-links.repository.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { callIdForProviderCall } from '../lifecycle/lifecycle.repository.ts';
import type { LifecycleService } from '../lifecycle/lifecycle.service.ts';
import { lockPlacedCall, recordProviderCall } from '../lifecycle/placement.ts';
import type { ElevenLabsProvider } from './adapter.ts';
import { applyEvents } from './webhook.routes.ts';
import { unconfirmedPlacements } from './unconfirmed.repository.ts';

/** How far back each pass looks for conversations we never heard of (a lost or refused webhook). */
export const RECONCILE_LOOKBACK_SECONDS = 2 * 3600;
export const RECONCILE_INTERVAL_MS = 60_000;
/** An unconfirmed placement is looked up once its own request must be over (PROVIDER_TIMEOUT_MS is at most 120 s). */
export const UNCONFIRMED_AFTER_SECONDS = 150;
const UNCONFIRMED_BATCH = 100;

export type ReconcileDeps = {
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
export async function reconcileMissedCalls(deps: ReconcileDeps, signal?: AbortSignal): Promise<number> {
  const after = Math.floor(deps.clock.now().getTime() / 1000) - RECONCILE_LOOKBACK_SECONDS;
  let found = 0;
  for (const agentId of await linkedAgentIds(deps.db)) {
    if (signal?.aborted) return found;
    const listed = await deps.provider.conversationsSince(agentId, after);
    if (!listed.ok) continue;
    for (const id of listed.value) {
      if (signal?.aborted) return found;
      if (await callIdForProviderCall(deps.db, id)) continue;
      const events = await deps.provider.callEvents(id);
      if (!events.ok) continue;
      const outcomes = await applyEvents(deps.lifecycle, events.value);
      if (outcomes.includes('applied')) found += 1;
    }
  }
  return found;
}

/**
 * Placements that timed out stay queued without a provider handle: look each up by our call id (its `user_id`
 * upstream); one ElevenLabs did start gets its handle and its events. One it never started is left to the
 * lifecycle's reconciliation, which ends it (`placement_lost`). Returns how many were found. Once `signal` is
 * aborted it ends after the placement in hand.
 */
export async function resolveUnconfirmedPlacements(
  deps: ReconcileDeps,
  signal?: AbortSignal,
): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - UNCONFIRMED_AFTER_SECONDS * 1000);
  let found = 0;
  for (const row of await unconfirmedPlacements(deps.db, before, UNCONFIRMED_BATCH)) {
    if (signal?.aborted) return found;
    const placed = await deps.provider.findPlacement(row.agent_id, row.call_id);
    if (!placed.ok || !placed.value) continue;
    const conversationId = placed.value;
    const recorded = await deps.db.transaction().execute(async (tx) => {
      const call = await lockPlacedCall(tx, row.call_id);
      if (!call || call.providerCallId) return false;
      await recordProviderCall(tx, row.call_id, { providerCallId: conversationId }, deps.clock.now());
      return true;
    });
    if (!recorded) continue;
    found += 1;
    const events = await deps.provider.callEvents(conversationId);
    if (events.ok) await applyEvents(deps.lifecycle, events.value);
  }
  return found;
}

/** Both passes every minute in the server process (beside the provider driver); never overlapping. */
export function startReconciliation(deps: ReconcileDeps, onError: (err: unknown) => void) {
  let running: Promise<unknown> | null = null;
  const stopping = new AbortController();
  const timer = setInterval(() => {
    if (running) return;
    running = resolveUnconfirmedPlacements(deps, stopping.signal)
      .then(() => reconcileMissedCalls(deps, stopping.signal))
      .catch(onError)
      .finally(() => {
        running = null;
      });
  }, RECONCILE_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      stopping.abort();
      await running;
    },
  };
}
