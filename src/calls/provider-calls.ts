import type { Database } from '../db/index.ts';
import type { ProviderEvent } from '../provider/index.ts';
import type { ApplyOutcome } from './apply-event.ts';
import { callIdForProviderCall } from './lifecycle.repository.ts';
import type { LifecycleService } from './lifecycle.service.ts';
import { lockPlacedCall, recordProviderCall } from './placed-call.ts';
import { wasDeleted } from './tombstones.repository.ts';

/**
 * Whether one of our calls carries this provider handle, or carried it before it was deleted (reconciliation must
 * not make a deleted call again from the provider's list).
 */
export async function knowsProviderCall(db: Database, providerCallId: string): Promise<boolean> {
  return (
    (await callIdForProviderCall(db, providerCallId)) !== null || (await wasDeleted(db, { providerCallId }))
  );
}

/**
 * Outbound calls of these assistants whose placement the provider never confirmed (a timeout), older than
 * `before`, still queued and without a provider handle, oldest first.
 */
export function unconfirmedPlacements(
  db: Database,
  o: { assistantIds: string[]; before: Date; limit: number },
): Promise<{ call_id: string; assistant_id: string }[]> {
  if (o.assistantIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('call_lifecycle')
    .innerJoin('calls', 'calls.id', 'call_lifecycle.call_id')
    .select(['calls.id as call_id', 'calls.assistant_id as assistant_id'])
    .where('calls.assistant_id', 'in', o.assistantIds)
    .where('call_lifecycle.provider_call_id', 'is', null)
    .where('call_lifecycle.processing_state', '=', 'none')
    .where('calls.status', '=', 'queued')
    .where('calls.direction', '=', 'outbound')
    .where('call_lifecycle.created_at', '<', o.before)
    .orderBy('call_lifecycle.created_at')
    .limit(o.limit)
    .execute();
}

/**
 * Gives an unconfirmed placement the handle the provider turned out to have: false when the call is gone or
 * already has one (another instance got there first).
 */
export function recordLateProviderCall(
  db: Database,
  callId: string,
  providerCallId: string,
  now: Date,
): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const call = await lockPlacedCall(tx, callId);
    if (!call || call.providerCallId) return false;
    await recordProviderCall(tx, callId, { providerCallId }, now);
    return true;
  });
}

/** Applies a conversation's events in order; a replayed or late one is ignored by the state machine. */
export async function applyProviderEvents(
  lifecycle: LifecycleService,
  events: ProviderEvent[],
): Promise<ApplyOutcome[]> {
  const outcomes: ApplyOutcome[] = [];
  for (const event of events) outcomes.push(await lifecycle.applyProviderEvent(event));
  return outcomes;
}
