import { z } from 'zod';
import { MAX_CURSOR_LENGTH } from '../pagination/cursor.ts';
import type { Instant } from '../pagination/instant.ts';
import { enumParam, instantParam, intParam, tokenParam, uuidParam } from '../pagination/query-params.ts';

export const CALLS_DEFAULT_LIMIT = 25;
export const CALLS_MAX_LIMIT = 100;
/** `page` stays within a 32-bit integer; deep pages are slow anyway (use cursors). */
export const MAX_PAGE = 2_147_483_647;

/** GET /calls query. Unknown parameters are refused (one issue each), as are repeated ones. */
const isInstant = (v: unknown): v is Instant =>
  typeof v === 'object' && v !== null && typeof (v as Instant).micros === 'bigint';

export const listCallsQuery = z
  .strictObject({
    direction: enumParam(['inbound', 'outbound']),
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
