import { sql } from 'kysely';
import type { CallDirection, Database } from '../db/index.ts';

/**
 * A list's filters; every query is scoped to one customer. Each value is one bind parameter whatever it holds
 * (prepared statements keep one shape per set of filters present). Made from a parsed query by `callListFilter`
 * (calls.filter.ts), the one mapping every list of calls shares.
 */
export type CallListFilter = {
  customerId: string;
  direction?: CallDirection | undefined;
  /** Comma-separated statuses (one parameter, so the prepared statement keeps one shape for any number). */
  statuses?: string | undefined;
  assistantId?: string | undefined;
  /** Bounds on started_at: exact UTC text (microseconds). */
  fromIso?: string | undefined;
  toIso?: string | undefined;
  fromNumber?: string | undefined;
  toNumber?: string | undefined;
  externalId?: string | undefined;
  /** A JSON object of the pairs to match, values as text: `{"plan":"gold"}`. */
  metadata?: string | undefined;
  disconnectReason?: string | undefined;
  durationMin?: number | undefined;
  durationMax?: number | undefined;
  /** USD as decimal text (numeric(12,4)), never a float. */
  costMin?: string | undefined;
  costMax?: string | undefined;
  hasTranscript?: boolean | undefined;
  /** Lower bound on updated_at: exact UTC text (microseconds). */
  updatedSinceIso?: string | undefined;
};

/** The filters of issue 39 (search). Any of them present: the page is planned with its values (`usesSearch`). */
const SEARCH_FILTERS = [
  'fromNumber',
  'toNumber',
  'externalId',
  'metadata',
  'disconnectReason',
  'durationMin',
  'durationMax',
  'costMin',
  'costMax',
  'hasTranscript',
  'updatedSinceIso',
] as const satisfies readonly (keyof CallListFilter)[];

/**
 * Whether a filter of the search is present. Their pages go out as unnamed statements, planned with the values:
 * for a range or a metadata pair the best plan depends on how many calls match (a generic plan would not know),
 * and their combinations would multiply the named statements each connection keeps.
 */
export const usesSearch = (f: CallListFilter): boolean => SEARCH_FILTERS.some((k) => f[k] !== undefined);

/**
 * Whether a list reads the matches first, then sorts them: with `updated_since` or `metadata`. Both follow time (a
 * call changes soon after it starts; a campaign runs for a while), so walking the list order and filtering, which
 * the planner would pick when it expects many matches, meets them all at first and then reads every older call
 * looking for more (seconds at the end of a walk of a million calls). Read from their own index behind a fence
 * (`offset 0`), a page costs what matches, at any depth (docs/query-plans.md).
 */
export const readsMatchesFirst = (f: CallListFilter): boolean =>
  f.updatedSinceIso !== undefined || f.metadata !== undefined;

/**
 * One customer's calls with the list filters, as `c`: the one place their conditions are written, for every list
 * of calls (the page, `page`'s skipped rows, an export). Another customer's values never match: every condition is
 * under `customer_id`, and the metadata terms name the customer.
 */
export function filteredCalls(db: Database, f: CallListFilter) {
  let q = db.selectFrom('calls as c').where('c.customer_id', '=', f.customerId);
  if (f.direction) q = q.where('c.direction', '=', f.direction);
  if (f.assistantId) q = q.where('c.assistant_id', '=', f.assistantId);
  if (f.statuses) q = q.where(sql<boolean>`c.status = any(string_to_array(${f.statuses}, ','))`);
  if (f.fromIso) q = q.where(sql<boolean>`c.started_at >= ${f.fromIso}::timestamptz`);
  if (f.toIso) q = q.where(sql<boolean>`c.started_at <= ${f.toIso}::timestamptz`);
  if (f.fromNumber) q = q.where('c.from_number', '=', f.fromNumber);
  if (f.toNumber) q = q.where('c.to_number', '=', f.toNumber);
  // Only where the API shows it: a call placed through POST /outbound-calls (calls.views.ts).
  if (f.externalId)
    q = q
      .where('c.external_id', '=', f.externalId)
      .where(sql<boolean>`c.api_initiated and c.direction = 'outbound'`);
  if (f.metadata)
    q = q.where(
      sql<boolean>`c.metadata is not null and calls_metadata_terms(c.customer_id, c.metadata) @> calls_metadata_terms(${f.customerId}::uuid, ${f.metadata}::jsonb)`,
    );
  if (f.disconnectReason) q = q.where('c.disconnect_reason', '=', f.disconnectReason);
  if (f.durationMin !== undefined) q = q.where('c.duration_seconds', '>=', f.durationMin);
  if (f.durationMax !== undefined) q = q.where('c.duration_seconds', '<=', f.durationMax);
  if (f.costMin) q = q.where(sql<boolean>`c.cost_usd >= ${f.costMin}::numeric`);
  if (f.costMax) q = q.where(sql<boolean>`c.cost_usd <= ${f.costMax}::numeric`);
  if (f.hasTranscript !== undefined) q = q.where('c.has_transcript', '=', f.hasTranscript);
  if (f.updatedSinceIso) q = q.where(sql<boolean>`c.updated_at >= ${f.updatedSinceIso}::timestamptz`);
  return q;
}
