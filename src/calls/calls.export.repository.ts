import { sql } from 'kysely';
import type { Database } from '../db/index.ts';
import { type CallListFilter, filteredCalls } from './calls.filter.repository.ts';
import { type CallPosition, DETAIL_COLUMNS } from './calls.read.repository.ts';

/**
 * One batch of an export: the detail fields of the calls after `after`, newest first, on the same index range scan
 * as a list page (docs/query-plans.md), with each row's keyset position. An export reads batch after batch, so it
 * holds no transaction, cursor or lock between them, and memory stays one batch whatever the size of the export.
 */
export function exportBatch(db: Database, f: CallListFilter, after: CallPosition | null, size: number) {
  let q = filteredCalls(db, f).select([
    ...DETAIL_COLUMNS,
    sql<string>`to_char(c.started_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`.as('position_iso'),
  ]);
  if (after)
    q = q.where(sql<boolean>`(c.started_at, c.id) < (${after.atIso}::timestamptz, ${after.id}::uuid)`);
  return q.orderBy('c.started_at', 'desc').orderBy('c.id', 'desc').limit(size).execute();
}
