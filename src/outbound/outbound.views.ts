import type { CallRow, NewCall } from '../calls/calls.table.ts';
import { AppError } from '../errors/app-error.ts';
import type { Principal } from '../keys/authenticate.ts';
import type { ProviderError } from '../provider/interface.ts';
import type { AssistantInfo } from './checks.ts';
import type { OutboundCallBody } from './outbound.schema.ts';

export type OutboundCallView = {
  id: string;
  status: 'queued';
  to_number: string;
  assistant_id: string;
  from_number: string;
  external_id: string | null;
  created_at: string;
};
export type PlaceResult = { status: number; body: OutboundCallView; replayed: boolean };

/** Spec 2.7, plus from_number, external_id and created_at (additive). */
export const rowToView = (c: CallRow): OutboundCallView => ({
  id: c.id,
  status: 'queued',
  to_number: c.to_number,
  assistant_id: c.assistant_id,
  from_number: c.from_number,
  external_id: c.external_id,
  created_at: c.created_at.toISOString(),
});

export function newCallRow(
  p: Principal,
  body: OutboundCallBody,
  a: AssistantInfo,
  id: string,
  now: Date,
): NewCall {
  return {
    id,
    customer_id: p.customerId,
    assistant_id: a.id,
    direction: 'outbound',
    status: 'queued',
    started_at: now,
    answered_at: null,
    ended_at: null,
    duration_seconds: null,
    from_number: a.phone_numbers[0] ?? '',
    to_number: body.to_number,
    caller_name: null,
    api_initiated: true,
    api_key_id: p.keyId,
    external_id: body.external_id ?? null,
    variables: body.variables === undefined ? null : JSON.stringify(body.variables),
    metadata: body.metadata === undefined ? null : JSON.stringify(body.metadata),
    callback_url: body.callback_url ?? null,
    has_transcript: false,
    recording_available: false,
    summary: null,
    disconnect_reason: null,
    conversation_id: null,
    cost_usd: null,
    billable_seconds: null,
    created_at: now,
    updated_at: now,
  };
}

export function providerFailure(error: ProviderError | null, keyed: boolean): AppError {
  const retry = keyed
    ? 'Retry with the same Idempotency-Key: it can never place the call twice.'
    : 'Send an Idempotency-Key when you retry, so the call can never be placed twice.';
  const what =
    error?.code === 'timeout'
      ? 'The voice provider did not confirm the call in time.'
      : 'The voice provider is unavailable; the call was not placed and nothing is charged.';
  return new AppError('carrier.unavailable', `${what} ${retry}`);
}
