import type { z } from 'zod';
import { intParam, MAX_CURSOR_LENGTH, tokenParam } from '../pagination/index.ts';
import { callFilterQuery } from './calls.filter.ts';

export const CALLS_DEFAULT_LIMIT = 25;
export const CALLS_MAX_LIMIT = 100;
/** `page` stays within a 32-bit integer; deep pages are slow anyway (use cursors). */
export const MAX_PAGE = 2_147_483_647;

/** GET /calls query: the filters (calls.filter.ts) and the pagination. Unknown and repeated parameters are refused. */
export const listCallsQuery = callFilterQuery({
  limit: intParam(1, CALLS_MAX_LIMIT).meta({ description: `Page size; default ${CALLS_DEFAULT_LIMIT}.` }),
  cursor: tokenParam(MAX_CURSOR_LENGTH).meta({
    description: 'The `next_cursor` of the previous page (same filters); wins over `page`.',
  }),
  page: intParam(0, MAX_PAGE).meta({ description: 'Offset-style alias: skips `page × limit` calls.' }),
});

export type ListCallsQuery = z.output<typeof listCallsQuery>;
