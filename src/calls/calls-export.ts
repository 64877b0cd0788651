import type { Database } from '../db/index.ts';
import { exportBatch } from './calls.export.repository.ts';
import { type CallFilterQuery, callListFilter } from './calls.filter.ts';
import { type CallDetailView, rowToCallDetail } from './calls.views.ts';

/** Rows read per statement: large enough that a million calls is a thousand round trips, small in memory. */
export const EXPORT_BATCH = 1000;

/**
 * Every call of a list's filters, batch after batch, newest first, as the API's detail shape. Stops between batches
 * when `signal` aborts (the client went away), so a dropped connection ends the reads.
 */
export async function* exportCalls(
  db: Database,
  customerId: string,
  q: CallFilterQuery,
  signal: AbortSignal,
  batchSize = EXPORT_BATCH,
): AsyncGenerator<CallDetailView[]> {
  const filter = callListFilter(customerId, q);
  let after: { atIso: string; id: string } | null = null;
  while (!signal.aborted) {
    const rows = await exportBatch(db, filter, after, batchSize);
    if (rows.length === 0) return;
    yield rows.map(rowToCallDetail);
    const last = rows[rows.length - 1];
    if (!last || rows.length < batchSize) return;
    after = { atIso: last.position_iso, id: last.id };
  }
}
