import { z } from 'zod';
import type { CallRow } from '../db/index.ts';
import { AppError, type ErrorCode, errorStatus } from '../errors/index.ts';
import { sameShape } from '../http/index.ts';
import type { ProviderError } from '../provider/index.ts';
import type { DryRunView } from './dry-run.ts';

/** Spec 2.7, plus from_number, external_id and created_at (additive). */
export const outboundCallSchema = z
  .object({
    id: z.uuid(),
    status: z.literal('queued'),
    to_number: z.string(),
    assistant_id: z.uuid(),
    from_number: z.string().meta({ description: "The assistant's number the call is placed from." }),
    external_id: z.string().nullable().meta({ description: 'Your reference, echoed.' }),
    created_at: z.string().meta({ format: 'date-time' }),
    livemode: z.boolean().meta({
      description: 'False for a test-mode call: the built-in simulator plays it and it costs nothing.',
    }),
  })
  .meta({
    id: 'OutboundCall',
    examples: [
      {
        id: '1d5a3c9e-8f0b-4e6a-9c2d-7b1e4f3a6c58',
        status: 'queued',
        to_number: '+14155550123',
        assistant_id: '7c0e2b8a-3f4d-4b6e-8a1c-5d9f2e7b3a10',
        from_number: '+14155550100',
        external_id: 'crm-42',
        created_at: '2026-11-21T10:00:00.000Z',
        livemode: true,
      },
    ],
  });
export type OutboundCallView = z.output<typeof outboundCallSchema>;

const usd = z.string().meta({ description: 'US dollars as a decimal string.', examples: ['100.00'] });

/** POST /outbound-calls/dry-run 200: every check a placement makes, none of its effects. */
export const dryRunSchema = z
  .object({
    allowed: z.boolean().meta({ description: 'True when a real placement would pass every check.' }),
    checks: z.array(
      z.object({
        name: z.enum(['assistant', 'number_type', 'country', 'spend_cap']),
        passed: z.boolean(),
        code: z
          .enum(Object.keys(errorStatus) as [ErrorCode, ...ErrorCode[]])
          .nullable()
          .meta({ description: 'The error code a placement would answer with; null when passed.' }),
        detail: z.string().nullable(),
        bound: z
          .enum(['key', 'customer'])
          .nullable()
          .meta({
            description:
              "Which bound refused: `key`, the key's own allowlist or daily cap (change the key); `customer`, the " +
              'outbound limits the operator set for your account, which hold every key (ask the operator). Null when ' +
              'the check passed or is not a bound.',
          }),
      }),
    ),
    to_number: z.string(),
    country: z
      .string()
      .nullable()
      .meta({
        description:
          'ISO 3166-1 alpha-2 country of to_number; null for a number of no country (+800, +870, +882, …), which an ' +
          'allowlist names by its code.',
      }),
    from_number: z.string().nullable(),
    spend: z.object({
      daily_cap_usd: z.string().meta({
        description:
          "The cap this key is held to, in US dollars: the lower of its own and its customer's largest.",
        examples: ['100.00'],
      }),
      used_today_usd: usd,
      call_estimate_usd: usd,
      remaining_usd: usd,
      resets_at: z.string().meta({ format: 'date-time' }),
    }),
    livemode: z.boolean().meta({
      description:
        'False with a `svc_test_` key: the call would be simulated and cost nothing (`call_estimate_usd` 0).',
    }),
  })
  .meta({
    id: 'OutboundDryRun',
    examples: [
      {
        allowed: true,
        checks: [
          { name: 'assistant', passed: true, code: null, detail: null, bound: null },
          { name: 'number_type', passed: true, code: null, detail: null, bound: null },
          { name: 'country', passed: true, code: null, detail: null, bound: null },
          { name: 'spend_cap', passed: true, code: null, detail: null, bound: null },
        ],
        to_number: '+14155550123',
        country: 'US',
        from_number: '+14155550100',
        spend: {
          daily_cap_usd: '100.00',
          used_today_usd: '12.40',
          call_estimate_usd: '0.90',
          remaining_usd: '87.60',
          resets_at: '2026-11-22T00:00:00.000Z',
        },
        livemode: true,
      },
    ],
  });
sameShape<DryRunView, z.output<typeof dryRunSchema>>();

export type PlaceResult = { status: number; body: OutboundCallView; replayed: boolean };

export const rowToView = (c: CallRow): OutboundCallView => ({
  id: c.id,
  status: 'queued',
  to_number: c.to_number,
  assistant_id: c.assistant_id,
  from_number: c.from_number,
  external_id: c.external_id,
  created_at: c.created_at.toISOString(),
  livemode: c.livemode,
});

export function providerFailure(error: ProviderError | null, keyed: boolean): AppError {
  const retry = keyed
    ? 'Retry with the same Idempotency-Key: it can never place the call twice.'
    : 'Send an Idempotency-Key when you retry, so the call can never be placed twice.';
  if (error?.code === 'busy') {
    return new AppError(
      'carrier.busy',
      `The voice provider is at its concurrency limit; nothing was placed. ${retry}`,
      { headers: { 'retry-after': String(error.retryAfterSeconds ?? 5) } },
    );
  }
  const what =
    error?.code === 'timeout'
      ? 'The voice provider did not confirm the call in time.'
      : 'The voice provider is unavailable; the call was not placed and nothing is charged.';
  return new AppError('carrier.unavailable', `${what} ${retry}`);
}
