import { sql } from 'kysely';
import { assistantLanguageOf, assistantNameOf } from '../assistants/index.ts';
import type { Database } from '../db/index.ts';
import { prepare } from '../db/index.ts';
import {
  type CallListFilter,
  filteredCalls,
  readsMatchesFirst,
  usesSearch,
} from './calls.filter.repository.ts';

/** A keyset position: a row's exact started_at (UTC text, microseconds) and id. */
export type CallPosition = { atIso: string; id: string };

const assistantName = assistantNameOf('c.assistant_id').as('assistant_name');
const LIST_COLUMNS = [
  'c.id',
  'c.direction',
  'c.status',
  'c.started_at',
  'c.answered_at',
  'c.ended_at',
  'c.duration_seconds',
  'c.from_number',
  'c.to_number',
  'c.assistant_id',
  'c.caller_name',
  'c.api_initiated',
  'c.external_id',
  'c.variables',
  'c.has_transcript',
  'c.recording_available',
  'c.created_at',
  'c.updated_at',
  'c.livemode',
] as const;

/** What the detail shape (GET /calls/{id}, an export's rows) reads of a call. */
export const DETAIL_COLUMNS = [
  ...LIST_COLUMNS,
  assistantName,
  'c.summary',
  'c.disconnect_reason',
  'c.conversation_id',
  sql<string | null>`c.cost_usd::text`.as('cost_usd'),
  'c.billable_seconds',
] as const;

// Microseconds since the epoch, exact (extract returns numeric): the keyset position of a row.
const micros = (column: 'c.started_at' | 's.started_at') =>
  sql<string>`(extract(epoch from ${sql.ref(column)}) * 1000000)::bigint::text`;

/** Where a page starts: after a keyset position, after the row `skipped` rows deep (for `page`), or at the top. */
export type CallPageStart = CallPosition | { skipped: number } | null;

/**
 * One page, newest first (`started_at desc, id desc`), starting after a keyset position: a range scan
 * on one of the calls_customer_* indexes whatever the depth (docs/query-plans.md). After `skipped` rows, the
 * position is the subquery `skippedRow` in the same statement (one round trip; past the end it is null and the
 * page empty). Callers ask for limit + 1 rows to learn whether another page follows. Returned unexecuted so tests
 * can EXPLAIN it. With `updated_since` or `metadata` the matches are read first, then sorted (`readsMatchesFirst`).
 */
export function callPageQuery(db: Database, f: CallListFilter, start: CallPageStart, limit: number) {
  let q = filteredCalls(db, f).select(LIST_COLUMNS);
  if (start && 'skipped' in start)
    q = q.where(sql<boolean>`(c.started_at, c.id) < ${skippedRow(db, f, start.skipped)}`);
  else if (start)
    q = q.where(sql<boolean>`(c.started_at, c.id) < (${start.atIso}::timestamptz, ${start.id}::uuid)`);
  return db
    .selectFrom((readsMatchesFirst(f) ? q.offset(0) : q).as('c'))
    .select([...LIST_COLUMNS, assistantName, micros('c.started_at').as('position_micros')])
    .orderBy('c.started_at', 'desc')
    .orderBy('c.id', 'desc')
    .limit(limit);
}

type PageValues = CallListFilter & Partial<CallPosition> & { limit: number };

const callPage = prepare((db, p: PageValues) =>
  callPageQuery(
    db,
    p,
    p.atIso !== undefined && p.id !== undefined ? { atIso: p.atIso, id: p.id } : null,
    p.limit,
  ),
);

/** A page after a keyset position (or the first); prepared for today's filters, planned with its values for search. */
export const listCallRows = (db: Database, f: CallListFilter, after: CallPosition | null, limit: number) =>
  usesSearch(f) ? callPageQuery(db, f, after, limit).execute() : callPage(db, { ...f, ...after, limit });

/** The page after the first `skipped` rows (`page`), in one statement. */
export const listCallRowsAfter = (db: Database, f: CallListFilter, skipped: number, limit: number) =>
  callPageQuery(db, f, { skipped }, limit).execute();

/**
 * The row `offset` rows into the list, read from the index alone (index-only scan: no join, no table rows).
 */
const skippedRow = (db: Database, f: CallListFilter, offset: number) => {
  const q = filteredCalls(db, f).select(['c.started_at', 'c.id']);
  return db
    .selectFrom((readsMatchesFirst(f) ? q.offset(0) : q).as('c'))
    .select(['c.started_at', 'c.id'])
    .orderBy('c.started_at', 'desc')
    .orderBy('c.id', 'desc')
    .offset(offset)
    .limit(1);
};

/** The position of the row `offset` rows into the list, on its own (the EXPLAIN script finds a deep cursor). */
export function callPositionQuery(db: Database, f: CallListFilter, offset: number) {
  return db
    .selectFrom(skippedRow(db, f, offset).as('s'))
    .select(['s.id', micros('s.started_at').as('position_micros')]);
}

/** One call of one customer, with the detail fields; undefined when missing or another customer's. */
export async function findCallRow(db: Database, customerId: string, id: string) {
  return filteredCalls(db, { customerId }).select(DETAIL_COLUMNS).where('c.id', '=', id).executeTakeFirst();
}

/** One call of one customer with its assistant's language, for its transcript; undefined when missing. */
export async function findCallForTranscript(db: Database, customerId: string, callId: string) {
  return filteredCalls(db, { customerId })
    .select([
      'c.id',
      'c.direction',
      'c.api_initiated',
      'c.status',
      'c.assistant_id',
      'c.conversation_id',
      'c.started_at',
      'c.answered_at',
      'c.duration_seconds',
      'c.livemode',
      assistantLanguageOf('c.assistant_id').as('language'),
    ])
    .where('c.id', '=', callId)
    .executeTakeFirst();
}
