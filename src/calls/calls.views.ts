import type { CallDetailRow, CallListRow } from './calls.read.repository.ts';

type CallFields = Omit<CallListRow, 'position_micros'>;

/** GET /calls item (spec 2.3). Every field is always present; unknown values are null. */
export type CallView = {
  id: string;
  direction: 'inbound' | 'outbound';
  status: string;
  started_at: string;
  answered_at: string | null;
  ended_at: string | null;
  duration_seconds: number | null;
  from_number: string;
  to_number: string;
  assistant_id: string;
  assistant_name: string;
  caller_name: string | null;
  external_id: string | null;
  variables: Record<string, unknown> | null;
  has_transcript: boolean;
  recording_available: boolean;
  created_at: string;
};

/** GET /calls/{id} (spec 2.4): the list fields plus the post-call fields. */
export type CallDetailView = CallView & {
  summary: string | null;
  disconnect_reason: string | null;
  conversation_id: string | null;
  /** USD, at most 4 decimals; exactly the stored numeric(12,4) (12 significant digits survive a double). */
  cost: number | null;
  billable_seconds: number | null;
};

const iso = (d: Date | null): string | null => d?.toISOString() ?? null;

const asObject = (v: unknown): Record<string, unknown> | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

export function rowToCall(r: CallFields): CallView {
  // external_id and variables are echoed only for calls placed through POST /outbound-calls (spec 2.3).
  const fromApi = r.api_initiated && r.direction === 'outbound';
  return {
    id: r.id,
    direction: r.direction,
    status: r.status,
    started_at: r.started_at.toISOString(),
    answered_at: iso(r.answered_at),
    ended_at: iso(r.ended_at),
    duration_seconds: r.duration_seconds,
    from_number: r.from_number,
    to_number: r.to_number,
    assistant_id: r.assistant_id,
    assistant_name: r.assistant_name,
    caller_name: r.caller_name,
    external_id: fromApi ? r.external_id : null,
    variables: fromApi ? asObject(r.variables) : null,
    has_transcript: r.has_transcript,
    recording_available: r.recording_available,
    created_at: r.created_at.toISOString(),
  };
}

export function rowToCallDetail(r: CallDetailRow): CallDetailView {
  return {
    ...rowToCall(r),
    summary: r.summary,
    disconnect_reason: r.disconnect_reason,
    conversation_id: r.conversation_id,
    // Decimal text from PostgreSQL to a JSON number: numeric(12,4) has at most 12 significant digits,
    // which a double holds exactly in its shortest form, so the JSON text equals the stored value.
    cost: r.cost_usd === null ? null : Number(r.cost_usd),
    billable_seconds: r.billable_seconds,
  };
}
