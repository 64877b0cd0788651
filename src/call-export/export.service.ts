import { callDetailSchema, exportCalls, insightsOfCalls } from '../calls/index.ts';
import type { Database } from '../db/index.ts';
import { transcriptTexts } from '../transcripts/index.ts';
import type { ExportQuery } from './export.query.ts';
import { csvChunk, csvColumns, type ExportRow, ndjsonChunk } from './export-rows.ts';

/** The detail shape's fields, in the order the API documents them: the CSV's first columns. */
const DETAIL_FIELDS = Object.keys(callDetailSchema.shape);

export type ExportFormat = 'csv' | 'ndjson';

export function createCallExport(deps: { db: Database }) {
  const { db } = deps;
  return {
    /**
     * A customer's calls matching the list's filters, newest first, as text: the CSV header (even with no call), then
     * one chunk per batch of calls, each with the optional columns asked for. Pulled chunk by chunk, so a slow reader
     * slows the reads; stops reading when `signal` aborts.
     */
    async *stream(
      customerId: string,
      q: ExportQuery,
      format: ExportFormat,
      signal: AbortSignal,
      /** Told each batch's number of calls (the operator's summary). */
      counted: (calls: number) => void = () => {},
    ) {
      const include = q.include ?? [];
      const columns = csvColumns(DETAIL_FIELDS, include);
      if (format === 'csv') yield csvChunk([], columns, true);
      for await (const batch of exportCalls(db, customerId, q, signal)) {
        const ids = batch.map((c) => c.id);
        const [texts, insights] = await Promise.all([
          include.includes('transcript') ? transcriptTexts(db, customerId, ids) : null,
          include.includes('insights') ? insightsOfCalls(db, customerId, ids) : null,
        ]);
        const rows: ExportRow[] = batch.map((c) => ({
          ...c,
          ...(texts ? { transcript: texts.get(c.id) ?? null } : {}),
          ...(insights ? { insights: insights.get(c.id) ?? [] } : {}),
        }));
        counted(rows.length);
        yield format === 'csv' ? csvChunk(rows, columns, false) : ndjsonChunk(rows);
      }
    },
  };
}

export type CallExport = ReturnType<typeof createCallExport>;
