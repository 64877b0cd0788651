import { z } from 'zod';
import type { SmsMessageRow, SmsStatus } from '../db/index.ts';
import { type ErrorCode, errorStatus } from '../errors/index.ts';
import { CURSOR_EXAMPLE } from '../pagination/index.ts';

const instant = z.string().meta({ format: 'date-time' });
const STATUSES = ['queued', 'sending', 'sent', 'delivered', 'undelivered', 'failed', 'received'] as const;
export const SMS_STATUSES: readonly SmsStatus[] = STATUSES;

const EXAMPLE = {
  id: 'sms_4f0c2a9e7b1d3c5a6e8f0b2d',
  livemode: true,
  direction: 'outbound',
  status: 'queued',
  assistant_id: '7c0e2b8a-3f4d-4b6e-8a1c-5d9f2e7b3a10',
  from_number: '+14155550100',
  to_number: '+14155550123',
  body: 'Your table for 2 is booked for Friday at 7 pm. Reply STOP to opt out.',
  encoding: 'GSM-7',
  segments: 1,
  cost: '0.0079',
  error_code: null,
  error_message: null,
  external_id: 'booking-1234',
  metadata: { booking_id: 'b_1234' },
  created_at: '2026-11-21T10:00:00.000Z',
  updated_at: '2026-11-21T10:00:00.000Z',
} as const;

/** A text message, sent or received. */
export const messageSchema = z
  .object({
    id: z.string().meta({ description: '`sms_` and 24 hex characters.' }),
    livemode: z.boolean().meta({ description: 'False for a test-mode message: simulated, free.' }),
    direction: z.enum(['inbound', 'outbound']),
    status: z.enum(STATUSES).meta({
      description:
        '`queued` → `sending` → `sent` → `delivered`, or `undelivered` (the carrier could not deliver it) or ' +
        '`failed` (never sent); `received` for an inbound message. Final statuses never change.',
    }),
    assistant_id: z.uuid(),
    from_number: z.string(),
    to_number: z.string(),
    body: z.string(),
    encoding: z.enum(['GSM-7', 'UCS-2']),
    segments: z.number().int(),
    cost: z.string().meta({
      description:
        'US dollars, 4 places: the estimate (segments × the price per segment) until the final status, then what ' +
        'it cost (0 when it failed, always 0 in test mode and for inbound messages).',
    }),
    error_code: z
      .string()
      .nullable()
      .meta({ description: "The carrier's error code when undelivered or failed." }),
    error_message: z.string().nullable(),
    external_id: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    created_at: instant,
    updated_at: instant,
  })
  .meta({ id: 'Message', examples: [EXAMPLE] });
export type MessageView = z.output<typeof messageSchema>;

export const messageDetailSchema = messageSchema
  .extend({
    status_history: z
      .array(z.object({ status: z.enum(STATUSES), error_code: z.string().nullable(), at: instant }))
      .meta({ description: 'Each status the message reached, in time order (late reports included).' }),
  })
  .meta({
    id: 'MessageDetail',
    examples: [
      {
        ...EXAMPLE,
        status: 'delivered',
        updated_at: '2026-11-21T10:00:04.000Z',
        status_history: [
          { status: 'queued', error_code: null, at: '2026-11-21T10:00:00.000Z' },
          { status: 'sent', error_code: null, at: '2026-11-21T10:00:01.000Z' },
          { status: 'delivered', error_code: null, at: '2026-11-21T10:00:04.000Z' },
        ],
      },
    ],
  });

export const messagesPageSchema = z
  .object({
    data: z.array(messageSchema),
    next_cursor: z
      .string()
      .nullable()
      .meta({
        description: 'Pass as `cursor` for the next page; null at the end.',
        examples: [CURSOR_EXAMPLE],
      }),
  })
  .meta({ id: 'MessagesPage' });

export const rowToMessage = (m: SmsMessageRow): MessageView => ({
  id: m.id,
  livemode: m.livemode,
  direction: m.direction,
  status: m.status,
  assistant_id: m.assistant_id,
  from_number: m.from_number,
  to_number: m.to_number,
  body: m.body,
  encoding: m.encoding,
  segments: m.segments,
  cost: Number(m.cost_usd).toFixed(4),
  error_code: m.error_code,
  error_message: m.error_message,
  external_id: m.external_id,
  metadata: (m.metadata as Record<string, unknown> | null) ?? null,
  created_at: m.created_at.toISOString(),
  updated_at: m.updated_at.toISOString(),
});

const usd = z.string().meta({ description: 'US dollars as a decimal string.' });

/** POST /sms/send/dry-run 200: every check a send makes, none of its effects. */
export const smsDryRunSchema = z
  .object({
    allowed: z.boolean(),
    checks: z.array(
      z.object({
        name: z.enum([
          'body',
          'assistant',
          'sender',
          'number_type',
          'country',
          'reachable',
          'opt_out',
          'spend_cap',
        ]),
        passed: z.boolean(),
        code: z.enum(Object.keys(errorStatus) as [ErrorCode, ...ErrorCode[]]).nullable(),
        detail: z.string().nullable(),
        bound: z.enum(['key', 'customer']).nullable(),
      }),
    ),
    to_number: z.string(),
    country: z.string().nullable(),
    from_number: z.string().nullable(),
    encoding: z.enum(['GSM-7', 'UCS-2']),
    segments: z.number().int(),
    spend: z.object({
      daily_cap_usd: usd,
      used_today_usd: usd,
      call_estimate_usd: usd.meta({
        description: "This message's estimate (the field is named as for calls).",
      }),
      remaining_usd: usd,
      resets_at: instant,
    }),
    livemode: z.boolean(),
  })
  .meta({
    id: 'SmsDryRun',
    examples: [
      {
        allowed: true,
        checks: [
          'body',
          'assistant',
          'sender',
          'number_type',
          'country',
          'reachable',
          'opt_out',
          'spend_cap',
        ].map((name) => ({ name, passed: true, code: null, detail: null, bound: null })),
        to_number: '+14155550123',
        country: 'US',
        from_number: '+14155550100',
        encoding: 'GSM-7',
        segments: 1,
        spend: {
          daily_cap_usd: '100.00',
          used_today_usd: '12.40',
          call_estimate_usd: '0.0079',
          remaining_usd: '87.60',
          resets_at: '2026-11-22T00:00:00.000Z',
        },
        livemode: true,
      },
    ],
  });
export type SmsDryRunView = z.output<typeof smsDryRunSchema>;
