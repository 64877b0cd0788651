import type { Logger } from 'pino';
import type { LifecycleService } from '../calls/index.ts';
import {
  applyProviderEvents,
  knowsProviderCall,
  recordLateProviderCall,
  unconfirmedPlacements,
} from '../calls/index.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/index.ts';
import { type Loop, startLoop } from '../loop.ts';
import type { ProviderError, ProviderObserver, ProviderResult } from '../provider/index.ts';
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
 * A pass ended early because ElevenLabs failed (unreachable, refused, unreadable): the rest would fail alike, so
 * it stops at the first such request rather than log one failure per call; the next pass starts over.
 */
export class ReconcilePassFailed extends Error {
  readonly failure: ProviderError;
  constructor(failure: ProviderError) {
    super(failure.detail);
    this.failure = failure;
    this.name = 'ReconcilePassFailed';
  }
}

/** The value, null for something ElevenLabs does not know, or the end of the pass. */
function orStop<T>(result: ProviderResult<T>): T | null {
  if (result.ok) return result.value;
  if (result.error.code === 'not_found') return null;
  throw new ReconcilePassFailed(result.error);
}

/**
 * Inbound calls we missed: every linked agent's conversations started in the look-back window
 * (`GET /v1/convai/conversations?agent_id=…&call_start_after_unix=…`, every cursor page); each one we do not know
 * is read (`GET /v1/convai/conversations/{id}`) and its events applied, which creates an inbound call (an outbound
 * conversation of a call we do not have stays unknown). Returns how many conversations were new to us. Once
 * `signal` is aborted (the server is stopping) it ends after the request in hand; the next pass finds the rest.
 * A failed request ends it with ReconcilePassFailed.
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
    const listed = orStop(await deps.provider.conversationsSince(agentId, after)) ?? [];
    for (const id of listed) {
      if (signal?.aborted) return found;
      if (await knowsProviderCall(deps.db, id)) continue;
      const events = orStop(await deps.provider.callEvents(id));
      if (!events) continue;
      const outcomes = await applyProviderEvents(deps.lifecycle, events);
      if (outcomes.includes('applied')) found += 1;
    }
  }
  return found;
}

/**
 * Placements that timed out stay queued without a provider handle: look each up by our call id (its `user_id`
 * upstream); one ElevenLabs did start gets its handle and its events. One it never started is left to the
 * calls' own reconciliation, which ends it (`placement_lost`). Returns how many were found. Once `signal` is
 * aborted it ends after the placement in hand. A failed request ends it with ReconcilePassFailed.
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
    const conversationId = orStop(await deps.provider.findPlacement(agentId, row.call_id));
    if (!conversationId) continue;
    if (!(await recordLateProviderCall(deps.db, row.call_id, conversationId, deps.clock.now()))) continue;
    found += 1;
    const events = orStop(await deps.provider.callEvents(conversationId));
    if (events) await applyProviderEvents(deps.lifecycle, events);
  }
  return found;
}

type PassDeps = ElevenLabsReconcileDeps & {
  logger: Logger;
  intervalSeconds: number;
  observer?: ProviderObserver | undefined;
};

/**
 * One pass: the placements, then the missed calls. Counted (`provider_reconciliations_total{result}`); one that
 * ElevenLabs failed is logged once, with the cause, beside the failed request's own line.
 */
export async function reconcilePass(deps: PassDeps, signal?: AbortSignal): Promise<void> {
  try {
    await resolveUnconfirmedPlacements(deps, signal);
    await reconcileMissedCalls(deps, signal);
    deps.observer?.reconciliation('ok');
  } catch (error) {
    deps.observer?.reconciliation('failed');
    if (!(error instanceof ReconcilePassFailed)) throw error;
    deps.logger.warn(
      { provider: 'elevenlabs', code: error.failure.code, cause: error.failure.detail },
      `ElevenLabs reconciliation pass failed: ${error.failure.detail} The next pass, in ${deps.intervalSeconds} s, starts over.`,
    );
  }
}

/** A pass every `intervalSeconds` (RECONCILE_INTERVAL_SECONDS) in the server process, never overlapping. */
export function startElevenLabsReconciliation(deps: PassDeps): Loop {
  return startLoop(
    { name: 'ElevenLabs reconciliation', intervalMs: deps.intervalSeconds * 1000, logger: deps.logger },
    (signal) => reconcilePass(deps, signal),
  );
}
