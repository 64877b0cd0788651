import { z } from 'zod';
import { MAX_CURSOR_LENGTH } from '../pagination/cursor.ts';
import { intParam, tokenParam, uuidParam } from '../pagination/query-params.ts';

export const ASSISTANTS_DEFAULT_LIMIT = 50;
export const ASSISTANTS_MAX_LIMIT = 100;
const MAX_OFFSET = 2_147_483_647;

/**
 * GET /assistants query: the spec's `id`, `limit`, `offset`, plus (spec 4.11) `page` and `cursor`.
 * Unknown or repeated parameters are refused. `offset` and `page` say the same thing two ways, so
 * sending both is refused; `cursor` wins over either (as on GET /calls).
 */
export const listAssistantsQuery = z
  .strictObject({
    id: uuidParam(),
    limit: intParam(1, ASSISTANTS_MAX_LIMIT),
    offset: intParam(0, MAX_OFFSET),
    page: intParam(0, MAX_OFFSET),
    cursor: tokenParam(MAX_CURSOR_LENGTH),
  })
  .refine((q) => q.offset === undefined || q.page === undefined, {
    path: ['page'],
    message: 'Send either `offset` or `page`, not both.',
    when: () => true,
  });

export type ListAssistantsQuery = z.output<typeof listAssistantsQuery>;
