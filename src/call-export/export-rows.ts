import { stringify } from 'csv-stringify/sync';
import type { CallDetailView } from '../calls/index.ts';
import type { OptionalColumn } from './export.query.ts';

export type ExportRow = CallDetailView & { transcript?: string | null; insights?: unknown[] };

/** The CSV's columns: the detail shape's fields in order, then the optional ones asked for. */
export function csvColumns(detailFields: readonly string[], include: readonly OptionalColumn[]): string[] {
  return [...detailFields, ...include];
}

/**
 * Text a spreadsheet would run as a formula (`=`, `@`, a tab or CR first; `+` or `-` first unless the rest is a
 * number, as an E.164 number is): a caller's name or a transcript is the caller's words, so it is kept as text with
 * a leading `'` (OWASP's advice for CSV injection). Numbers, booleans and plain text are written as they are.
 */
const FORMULA_RE = /^(?:[=@\t\r]|[+-](?!\d+(?:\.\d+)?$))/;
export const safeText = (s: string): string => (FORMULA_RE.test(s) ? `'${s}` : s);

/** A cell: text as is (formula-guarded), objects and arrays as JSON, null as empty (spreadsheets' convention). */
const cell = (v: unknown): string | number | boolean =>
  v === null || v === undefined
    ? ''
    : typeof v === 'object'
      ? JSON.stringify(v)
      : typeof v === 'string'
        ? safeText(v)
        : (v as number | boolean);

/** CSV (RFC 4180 through csv-stringify: quotes, doubled quotes, CRLF in fields) of one batch, header first if asked. */
export function csvChunk(rows: readonly ExportRow[], columns: readonly string[], header: boolean): string {
  const records = rows.map((r) => columns.map((c) => cell((r as Record<string, unknown>)[c])));
  return stringify(header ? [columns, ...records] : records, {
    record_delimiter: '\r\n',
    // `true`/`false` as JSON writes them, not csv-stringify's `1`/empty.
    cast: { boolean: (v) => String(v) },
  });
}

/** NDJSON: one JSON object per line. */
export const ndjsonChunk = (rows: readonly ExportRow[]): string =>
  rows.map((r) => `${JSON.stringify(r)}\n`).join('');
