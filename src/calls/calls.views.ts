import { z } from 'zod';
import { CURSOR_EXAMPLE } from '../pagination/index.ts';
import type { CallDetailRow, CallListRow } from './call-rows.ts';
import { CALL_STATUSES, type CallStatus } from './call-status.ts';

type CallFields = Omit<CallListRow, 'position_micros'>;

const timestamp = (description: string) => z.string().meta({ format: 'date-time', description });
const e164 = (description: string) => z.string().meta({ description, examples: ['+14155550100'] });

const CALL_EXAMPLE = {
  id: '1d5a3c9e-8f0b-4e6a-9c2d-7b1e4f3a6c58',
  direction: 'outbound',
  status: 'completed',
  started_at: '2026-11-21T10:00:00.000Z',
  answered_at: '2026-11-21T10:00:04.000Z',
  ended_at: '2026-11-21T10:02:10.000Z',
  duration_seconds: 126,
  from_number: '+14155550100',
  to_number: '+14155550123',
  assistant_id: '7c0e2b8a-3f4d-4b6e-8a1c-5d9f2e7b3a10',
  assistant_name: 'Front desk',
  caller_name: null,
  external_id: 'crm-42',
  variables: { first_name: 'Ada' },
  has_transcript: true,
  recording_available: false,
  created_at: '2026-11-21T10:00:00.000Z',
  updated_at: '2026-11-21T10:02:14.000Z',
  livemode: true,
};

/** GET /calls item (spec 2.3). Every field is always present; unknown values are null. */
export const callSchema = z
  .object({
    id: z.uuid(),
    direction: z.enum(['inbound', 'outbound']),
    status: z.enum(CALL_STATUSES).meta({
      description:
        'queued → ringing → in_progress → completed; or no_answer, busy, failed, canceled. Terminal values never change.',
    }),
    started_at: timestamp('When the call started (placed or rang in); `from`/`to` filter on it.'),
    answered_at: timestamp('When it was answered; null if never.').nullable(),
    ended_at: timestamp('When it ended; null while in progress.').nullable(),
    duration_seconds: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Whole seconds from answer to hang-up; null until the call ends.' }),
    from_number: e164('E.164 caller number.'),
    to_number: e164('E.164 destination number.'),
    assistant_id: z.uuid(),
    assistant_name: z.string(),
    caller_name: z.string().nullable(),
    external_id: z
      .string()
      .nullable()
      .meta({ description: 'Your reference from POST /outbound-calls; null for every other call.' }),
    variables: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: 'The `variables` given to POST /outbound-calls; null for every other call.' }),
    has_transcript: z.boolean(),
    recording_available: z.boolean(),
    created_at: timestamp('When the record was created.'),
    updated_at: timestamp(
      'When the call last changed (status, cost, transcript, insights); `updated_since` filters on it.',
    ),
    livemode: z
      .boolean()
      .meta({ description: 'False for a test-mode call (placed with a `svc_test_` key).' }),
  })
  .meta({
    id: 'Call',
    description: 'A call, inbound or outbound (spec 2.3). Clients ignore unknown fields.',
    examples: [CALL_EXAMPLE],
  });
export type CallView = z.output<typeof callSchema>;

/** GET /calls/{id} (spec 2.4): the list fields plus the post-call fields. */
export const callDetailSchema = callSchema
  .extend({
    summary: z.string().nullable().meta({ description: 'AI summary of the conversation; null until ready.' }),
    disconnect_reason: z
      .string()
      .nullable()
      .meta({ description: 'Why the call ended, e.g. `caller_hangup`; null while in progress.' }),
    conversation_id: z.string().nullable().meta({ description: "The provider's conversation id." }),
    cost: z
      .number()
      .nullable()
      .meta({ description: 'USD, at most 4 decimals, exactly as billed; null until post-processed.' }),
    billable_seconds: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Seconds billed; null until post-processed.' }),
  })
  .meta({
    id: 'CallDetail',
    description: 'A call with its post-call fields (spec 2.4).',
    examples: [
      {
        ...CALL_EXAMPLE,
        summary: 'The caller booked a table for two on Friday at 19:00.',
        disconnect_reason: 'caller_hangup',
        conversation_id: 'conv_8f2a61c0',
        cost: 0.2716,
        billable_seconds: 126,
      },
    ],
  });
export type CallDetailView = z.output<typeof callDetailSchema>;

/** GET /calls 200. */
export const callsPageSchema = z
  .object({
    data: z.array(callSchema),
    next_cursor: z
      .string()
      .nullable()
      .meta({
        description: 'Pass as `cursor` for the next page; null at the end.',
        examples: [CURSOR_EXAMPLE],
      }),
  })
  .meta({ id: 'CallsPage' });

const iso = (d: Date | null): string | null => d?.toISOString() ?? null;

const asObject = (v: unknown): Record<string, unknown> | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

export function rowToCall(r: CallFields): CallView {
  // external_id and variables are echoed only for calls placed through POST /outbound-calls (spec 2.3).
  const fromApi = r.api_initiated && r.direction === 'outbound';
  return {
    id: r.id,
    direction: r.direction,
    // The column only ever holds CALL_STATUSES (written through calls/call-status.ts transitions).
    status: r.status as CallStatus,
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
    updated_at: r.updated_at.toISOString(),
    livemode: r.livemode,
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
