import { z } from 'zod';
import type { CursorScope, Instant } from '../pagination/index.ts';
import { enumParam, instantParam, intParam, uuidParam } from '../pagination/index.ts';
import { toUnits } from './billing.ts';
import type { CallListFilter } from './calls.filter.repository.ts';
import { booleanParam, e164Param, exactParam, MAX_SECONDS, statusParam, usdParam } from './filter-params.ts';
import { metadataParam } from './metadata-param.ts';

/**
 * The filters of GET /calls, each optional and combined with AND: the one definition every list of calls parses
 * (the list, an export). Pagination parameters are the list's own (calls.query.ts).
 */
export const CALL_FILTER_PARAMS = {
  direction: enumParam(['inbound', 'outbound']),
  status: statusParam(),
  assistant_id: uuidParam(),
  from: instantParam('ceil').meta({
    description: 'Inclusive lower bound on `started_at` (ISO-8601 with offset).',
  }),
  to: instantParam('floor').meta({ description: 'Inclusive upper bound on `started_at`.' }),
  from_number: e164Param('Only calls from this number (exact E.164; encode `+` as `%2B`).'),
  to_number: e164Param('Only calls to this number (exact E.164; encode `+` as `%2B`).'),
  external_id: exactParam(
    255,
    'Only the call placed with this `external_id` (exact); only API-placed outbound calls have one.',
  ),
  metadata: metadataParam(),
  disconnect_reason: exactParam(200, 'Only calls that ended for this reason (exact), e.g. `caller_hangup`.'),
  duration_min: intParam(0, MAX_SECONDS).meta({
    description: 'Inclusive lower bound on `duration_seconds`; calls without a duration never match.',
  }),
  duration_max: intParam(0, MAX_SECONDS).meta({
    description: 'Inclusive upper bound on `duration_seconds`.',
  }),
  cost_min: usdParam('Inclusive lower bound on `cost` (USD); calls not yet billed never match.'),
  cost_max: usdParam('Inclusive upper bound on `cost` (USD).'),
  has_transcript: booleanParam('`true`: only calls with a transcript; `false`: only calls without.'),
  updated_since: instantParam('ceil').meta({
    description:
      'Only calls changed at or after this instant (`updated_at`: status, cost, transcript, insights). ' +
      'For polling: pass the instant your previous walk started, minus a margin.',
  }),
};

const FILTER_KEYS = Object.keys(CALL_FILTER_PARAMS) as (keyof typeof CALL_FILTER_PARAMS)[];

/** The parsed filters (each absent or valid). */
export type CallFilterQuery = {
  [K in keyof typeof CALL_FILTER_PARAMS]?: z.output<(typeof CALL_FILTER_PARAMS)[K]>;
};

const isInstant = (v: unknown): v is Instant =>
  typeof v === 'object' && v !== null && typeof (v as Instant).micros === 'bigint';

type Crossed = (low: unknown, high: unknown) => boolean;

/** Bounds that must not cross: the lower one, the upper one, whether they do, and the issue on the lower one. */
const BOUNDS: [keyof CallFilterQuery, keyof CallFilterQuery, Crossed, string][] = [
  ['from', 'to', (a, b) => isInstant(a) && isInstant(b) && a.micros > b.micros, 'Must not be after `to`.'],
  [
    'duration_min',
    'duration_max',
    (a, b) => typeof a === 'number' && typeof b === 'number' && a > b,
    'Must not be above `duration_max`.',
  ],
  [
    'cost_min',
    'cost_max',
    (a, b) => typeof a === 'string' && typeof b === 'string' && toUnits(a) > toUnits(b),
    'Must not be above `cost_max`.',
  ],
];

/**
 * The filter parameters and the check that no lower bound is above its upper one, on an object of more
 * parameters (`extra`: the list's pagination, an export's format). Unknown parameters are refused (one issue each),
 * as are repeated ones.
 */
export function callFilterQuery<const E extends z.ZodRawShape>(extra: E) {
  let schema = z.strictObject({ ...CALL_FILTER_PARAMS, ...extra });
  for (const [low, high, crossed, message] of BOUNDS)
    schema = schema.refine((q) => !crossed((q as CallFilterQuery)[low], (q as CallFilterQuery)[high]), {
      path: [low],
      message,
      // Also checked when another parameter is invalid, so every problem is reported at once.
      when: () => true,
    });
  return schema;
}

/** The repository filter of parsed filters: the one mapping from parameters to SQL conditions' values. */
export function callListFilter(customerId: string, q: CallFilterQuery): CallListFilter {
  return {
    customerId,
    direction: q.direction,
    statuses: q.status?.join(','),
    assistantId: q.assistant_id,
    fromIso: q.from?.iso,
    toIso: q.to?.iso,
    fromNumber: q.from_number,
    toNumber: q.to_number,
    externalId: q.external_id,
    metadata: q.metadata ? JSON.stringify(Object.fromEntries(q.metadata)) : undefined,
    disconnectReason: q.disconnect_reason,
    durationMin: q.duration_min,
    durationMax: q.duration_max,
    costMin: q.cost_min,
    costMax: q.cost_max,
    hasTranscript: q.has_transcript,
    updatedSinceIso: q.updated_since?.iso,
  };
}

/** A filter's value in the cursor scope: normalised, so equal filters bind equal cursors. */
const scopeValue = (v: unknown): string =>
  isInstant(v) ? String(v.micros) : typeof v === 'string' ? v : JSON.stringify(v);

/**
 * What a cursor is bound to: the customer and every filter, so it can only continue its own list. The filters of
 * the first version are positional; every later one is appended only when given (`name:value`), so cursors issued
 * before a filter existed still continue their lists.
 */
export function callFilterScope(customerId: string, q: CallFilterQuery): CursorScope {
  // direction, status, assistant_id, from and to come first, as before.
  const appended = FILTER_KEYS.slice(5).flatMap((k) =>
    q[k] === undefined ? [] : [`${k}:${scopeValue(q[k])}`],
  );
  return [
    customerId,
    q.direction ?? null,
    q.assistant_id ?? null,
    q.from ? String(q.from.micros) : null,
    q.to ? String(q.to.micros) : null,
    ...(q.status ? [`status:${q.status.join(',')}`] : []),
    ...appended,
  ];
}
