import { z } from 'zod';
import type { Instant } from '../pagination/index.ts';
import {
  enumParam,
  instantParam,
  intParam,
  MAX_CURSOR_LENGTH,
  queryParam,
  tokenParam,
  uuidParam,
} from '../pagination/index.ts';
import { CALL_STATUSES, type CallStatus } from './call-status.ts';

export const CALLS_DEFAULT_LIMIT = 25;
export const CALLS_MAX_LIMIT = 100;
/** `page` stays within a 32-bit integer; deep pages are slow anyway (use cursors). */
export const MAX_PAGE = 2_147_483_647;

/**
 * `status`: one status or several, comma-separated (`completed,no_answer`), since a repeated parameter is
 * refused. Parsed to the distinct statuses in CALL_STATUSES order, so equal sets bind equal cursors.
 */
const statusParam = () =>
  queryParam<CallStatus[]>(
    (raw) => {
      const given = raw.split(',');
      const unknown = given.filter((s) => !(CALL_STATUSES as readonly string[]).includes(s));
      if (unknown.length > 0)
        return {
          ok: false,
          message: `Must be one or more of, comma-separated: ${CALL_STATUSES.join(', ')}.`,
        };
      return { ok: true, value: CALL_STATUSES.filter((s) => given.includes(s)) };
    },
    {
      description:
        'Only calls in one of these statuses; one value or several, comma-separated (e.g. `completed,no_answer`). ' +
        `Values: ${CALL_STATUSES.map((s) => `\`${s}\``).join(', ')}.`,
      pattern: `^(${CALL_STATUSES.join('|')})(,(${CALL_STATUSES.join('|')}))*$`,
      examples: ['completed,no_answer'],
    },
  );

/** GET /calls query. Unknown parameters are refused (one issue each), as are repeated ones. */
const isInstant = (v: unknown): v is Instant =>
  typeof v === 'object' && v !== null && typeof (v as Instant).micros === 'bigint';

export const listCallsQuery = z
  .strictObject({
    direction: enumParam(['inbound', 'outbound']),
    status: statusParam(),
    assistant_id: uuidParam(),
    from: instantParam('ceil').meta({
      description: 'Inclusive lower bound on `started_at` (ISO-8601 with offset).',
    }),
    to: instantParam('floor').meta({ description: 'Inclusive upper bound on `started_at`.' }),
    limit: intParam(1, CALLS_MAX_LIMIT).meta({ description: `Page size; default ${CALLS_DEFAULT_LIMIT}.` }),
    cursor: tokenParam(MAX_CURSOR_LENGTH).meta({
      description: 'The `next_cursor` of the previous page (same filters); wins over `page`.',
    }),
    page: intParam(0, MAX_PAGE).meta({ description: 'Offset-style alias: skips `page × limit` calls.' }),
  })
  .refine((q) => !(isInstant(q.from) && isInstant(q.to) && q.from.micros > q.to.micros), {
    path: ['from'],
    message: 'Must not be after `to`.',
    // Also checked when another parameter is invalid, so every problem is reported at once.
    when: () => true,
  });

export type ListCallsQuery = z.output<typeof listCallsQuery>;
