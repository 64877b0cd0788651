import type { CallRow, Database } from '../db/index.ts';
import { newUuid } from '../ids.ts';
import * as repo from './callbacks.repository.ts';

/**
 * Events sent to an outbound call's callback_url, in this order (a call that is never answered
 * skips `call.ringing` and/or `call.answered`):
 * - call.queued: the provider accepted the call;
 * - call.ringing: the destination is ringing;
 * - call.answered: answered, the conversation started (status in_progress);
 * - call.ended: the call is over and post-processed; `data.status` is the final status
 *   (completed, no_answer, busy, failed or canceled) with duration, billable seconds and cost.
 */
export const CALLBACK_EVENTS = ['call.queued', 'call.ringing', 'call.answered', 'call.ended'] as const;
export type CallbackEvent = (typeof CALLBACK_EVENTS)[number];

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** A snapshot of the call, the same shape in every callback. */
export function callbackData(call: CallRow): Record<string, unknown> {
  return {
    call_id: call.id,
    status: call.status,
    direction: call.direction,
    assistant_id: call.assistant_id,
    from: call.from_number,
    to: call.to_number,
    external_id: call.external_id,
    started_at: iso(call.started_at),
    answered_at: iso(call.answered_at),
    ended_at: iso(call.ended_at),
    duration_seconds: call.duration_seconds,
    billable_seconds: call.billable_seconds,
    cost: call.cost_usd === null ? null : Number(call.cost_usd),
    disconnect_reason: call.disconnect_reason,
    conversation_id: call.conversation_id,
  };
}

/**
 * Records a callback notification in the outbox. Call it in the transaction that changed the call
 * (holding its row lock), with the call as it is after the change.
 */
export async function recordCallback(
  tx: Database,
  call: CallRow,
  event: CallbackEvent,
  now: Date,
): Promise<void> {
  if (!call.callback_url) return;
  const id = newUuid();
  const sequence = await repo.nextCallbackSequence(tx, call.id);
  const body = JSON.stringify({
    id,
    event,
    timestamp: now.toISOString(),
    sequence,
    data: callbackData(call),
  });
  await repo.insertCallback(tx, {
    id,
    customer_id: call.customer_id,
    call_id: call.id,
    sequence,
    event,
    url: call.callback_url,
    body,
    now,
  });
}
