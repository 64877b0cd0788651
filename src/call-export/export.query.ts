import type { z } from 'zod';
import { callFilterQuery } from '../calls/index.ts';
import { enumParam, queryParam } from '../pagination/index.ts';

const OPTIONAL_COLUMNS = ['transcript', 'insights'] as const;
export type OptionalColumn = (typeof OPTIONAL_COLUMNS)[number];

/** GET /calls/export query: the filters of GET /calls (no pagination), the format, and the optional columns. */
export const exportQuery = callFilterQuery({
  format: enumParam(['csv', 'ndjson'] as const).meta({
    description: 'Wins over `Accept` (`text/csv`, `application/x-ndjson`); CSV when neither says.',
  }),
  include: queryParam<OptionalColumn[]>(
    (raw) => {
      const given = raw.split(',');
      const unknown = given.filter((c) => !(OPTIONAL_COLUMNS as readonly string[]).includes(c));
      if (unknown.length > 0)
        return { ok: false, message: `Must be one or both of: ${OPTIONAL_COLUMNS.join(', ')}.` };
      return { ok: true, value: OPTIONAL_COLUMNS.filter((c) => given.includes(c)) };
    },
    {
      description:
        'Optional columns, comma-separated: `transcript` (the stored transcript as speaker-prefixed text, empty ' +
        'when none is stored) and `insights` (the AI insights as JSON).',
      pattern: '^(transcript|insights)(,(transcript|insights))?$',
      examples: ['transcript,insights'],
    },
  ),
});
export type ExportQuery = z.output<typeof exportQuery>;

/** The format a request asks for: `format` first, then `Accept`, else CSV. */
export function exportFormat(q: ExportQuery, accept: string | undefined): 'csv' | 'ndjson' {
  if (q.format) return q.format;
  if (accept && /application\/(x-)?ndjson|application\/jsonl/.test(accept)) return 'ndjson';
  return 'csv';
}
