import { z } from 'zod';
import { intParam, MAX_CURSOR_LENGTH, tokenParam, uuidParam } from '../pagination/index.ts';

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
    id: uuidParam().meta({ description: 'Selects one assistant (404 when it is not yours).' }),
    limit: intParam(1, ASSISTANTS_MAX_LIMIT).meta({
      description: `Page size; default ${ASSISTANTS_DEFAULT_LIMIT}.`,
    }),
    offset: intParam(0, MAX_OFFSET).meta({ description: 'Assistants to skip.' }),
    page: intParam(0, MAX_OFFSET).meta({ description: 'Skips `page × limit` (not with `offset`).' }),
    cursor: tokenParam(MAX_CURSOR_LENGTH).meta({ description: 'The `next_cursor` of the previous page.' }),
  })
  .refine((q) => q.offset === undefined || q.page === undefined, {
    path: ['page'],
    message: 'Send either `offset` or `page`, not both.',
    when: () => true,
  });

export type ListAssistantsQuery = z.output<typeof listAssistantsQuery>;
