import type { Logger } from 'pino';
import { findAssistant } from '../assistants/index.ts';
import type { Clock } from '../clock.ts';
import type { CallRow, Database } from '../db/index.ts';
import { newUuid } from '../ids.ts';
import type { ProviderEvent } from '../provider/index.ts';
import type { CallReports } from './call-reports.ts';
import { canTransition } from './call-status.ts';
import * as repo from './lifecycle.repository.ts';
import { createCall, newCallRow } from './new-call.ts';
import { wasDeleted } from './tombstones.repository.ts';

export type ApplyOutcome = 'applied' | 'ignored' | 'unknown';

type CallEvent = Exclude<ProviderEvent, { type: 'call.inbound' }>;
type InboundEvent = Extract<ProviderEvent, { type: 'call.inbound' }>;

const seconds = (from: Date, to: Date) => Math.max(0, Math.round((to.getTime() - from.getTime()) / 1000));

/**
 * Turns one provider event into our call record, in one transaction holding the call's row lock:
 * the status change, what it reports (`CallReports`) and (on the end) the pending post-processing step.
 * Duplicate, late or out-of-order events are ignored by the state machine, so redelivery is safe; an event of a
 * deleted call (its tombstone) is ignored too, so a late one never makes the call again.
 */
export async function applyProviderEvent(
  deps: { db: Database; clock: Clock; reports: CallReports; logger?: Logger | undefined },
  event: ProviderEvent,
): Promise<ApplyOutcome> {
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (tx) => {
    if (event.type === 'call.inbound') return createInbound(tx, event, now);
    const callId = event.callId ?? (await repo.callIdForProviderCall(tx, event.providerCallId));
    const call = callId ? await repo.lockCall(tx, callId) : undefined;
    if (!call) {
      const deleted = await wasDeleted(tx, { callId: event.callId, providerCallId: event.providerCallId });
      return deleted ? 'ignored' : 'unknown';
    }
    if (!(await mayChange(tx, call, event))) {
      deps.logger?.warn(
        {
          call_id: call.id,
          customer_id: call.customer_id,
          provider_call_id: event.providerCallId,
          claimed_by_assistant: event.claimedBy?.assistantId ?? null,
        },
        "provider event naming another customer's call ignored",
      );
      return 'ignored';
    }
    return applyToCall(tx, deps.reports, call, event, event.providerCallId, now);
  });
}

/**
 * An event that names its call only by the provider's word (`claimedBy`) changes it only if the conversation's
 * agent is linked to an assistant of the call's customer, or if it is the call's own conversation (its handle
 * recorded at placement: an assistant relinked since, or unlinked, still ends its calls).
 */
async function mayChange(tx: Database, call: CallRow, event: CallEvent): Promise<boolean> {
  if (!event.claimedBy) return true;
  const { assistantId } = event.claimedBy;
  const assistant = assistantId ? await findAssistant(tx, assistantId) : undefined;
  if (assistant?.customer_id === call.customer_id) return true;
  return (await repo.lockLifecycle(tx, call.id))?.provider_call_id === event.providerCallId;
}

/**
 * Ends a call on our side alone, `failed` with `reason`, when its provider lost it or never had it: the same
 * transition and post-processing as a provider's end. It ends at its last known instant (the last change we
 * applied), so the time we could not see is never billed.
 */
export async function endLostCall(
  deps: { db: Database; clock: Clock; reports: CallReports },
  callId: string,
  reason: string,
): Promise<ApplyOutcome> {
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (tx) => {
    const call = await repo.lockCall(tx, callId);
    if (!call) return 'unknown';
    const event: CallEvent = {
      type: 'call.ended',
      providerCallId: '',
      callId,
      status: 'failed',
      disconnectReason: reason,
      at: call.updated_at,
    };
    return applyToCall(tx, deps.reports, call, event, null, now);
  });
}

async function applyToCall(
  tx: Database,
  reports: CallReports,
  row: CallRow,
  event: CallEvent,
  providerCallId: string | null,
  now: Date,
): Promise<ApplyOutcome> {
  const { id: callId, answered_at: answeredAt } = row;
  const target =
    event.type === 'call.ringing' ? 'ringing' : event.type === 'call.answered' ? 'in_progress' : event.status;
  if (!canTransition(row.status, target)) return 'ignored';
  // The provider handle may reach us before the placing request recorded it.
  if (providerCallId)
    await repo.updateLifecycle(tx, callId, { provider_call_id: providerCallId, updated_at: now });
  if (event.type === 'call.ringing') {
    const call = await repo.updateCall(tx, callId, { status: target, updated_at: now });
    await reports.progressed(tx, call, 'call.ringing', now);
  } else if (event.type === 'call.answered') {
    const call = await repo.updateCall(tx, callId, {
      status: target,
      answered_at: event.at,
      conversation_id: event.conversationId,
      updated_at: now,
    });
    await reports.progressed(tx, call, 'call.answered', now);
  } else {
    await repo.updateCall(tx, callId, {
      status: target,
      ended_at: event.at,
      disconnect_reason: event.disconnectReason,
      // Telephony length until post-processing replaces it with the conversation's.
      duration_seconds: answeredAt ? seconds(answeredAt, event.at) : 0,
      updated_at: now,
    });
    await repo.updateLifecycle(tx, callId, {
      processing_state: 'pending',
      processing_due_at: now,
      updated_at: now,
    });
  }
  return 'applied';
}

async function createInbound(tx: Database, event: InboundEvent, now: Date): Promise<ApplyOutcome> {
  if (await repo.callIdForProviderCall(tx, event.providerCallId)) return 'ignored';
  // Deleted by its customer: the provider's late or repeated word of it must not make it again.
  if (await wasDeleted(tx, { providerCallId: event.providerCallId })) return 'ignored';
  const assistant = await findAssistant(tx, event.assistantId);
  if (!assistant) return 'unknown';
  const row = newCallRow({
    id: newUuid(),
    // A test-mode inbound call is filed under the customer's test twin, given by whoever made it (the test helper
    // route, which checked the assistant is its customer's).
    customer_id: event.testCustomerId ?? assistant.customer_id,
    livemode: event.testCustomerId === undefined,
    assistant_id: assistant.id,
    direction: 'inbound',
    status: 'ringing',
    started_at: event.at,
    from_number: event.from,
    to_number: event.to,
    caller_name: event.callerName,
    created_at: event.at,
    updated_at: now,
  });
  await createCall(tx, row, { providerCallId: event.providerCallId, now });
  return 'applied';
}
