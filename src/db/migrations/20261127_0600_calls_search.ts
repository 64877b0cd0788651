import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * GET /calls search (issue 39). Exact filters on values that can be rare (numbers, external_id, disconnect_reason)
 * get an index in list order, so a page is a range scan with the cursor in its condition, as for today's filters.
 * Ranges on another column than the order (updated_since, duration, cost) get a plain index: the planner reads the
 * matches and sorts them when the range is narrow, or reads the list order and filters when it is wide.
 * metadata: a GIN index over the call's pairs as "customer/length:key=value" terms (calls_metadata_terms), so a
 * pair is looked up within its customer only and compared as text (a number's JSON text, `true`, …; null never).
 * updated_at is now indexed, so the updates of a call's lifecycle are no longer HOT (docs/query-plans.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `create function calls_metadata_terms(customer uuid, metadata jsonb) returns text[]
      language sql immutable parallel safe
      as $$ select array(select customer::text || '/' || length(key) || ':' || key || '=' || value
        from jsonb_each_text(case when jsonb_typeof(metadata) = 'object' then metadata end)
        where value is not null) $$`,
    `create index calls_customer_from_started_idx on calls (customer_id, from_number, started_at desc, id desc)`,
    `create index calls_customer_to_started_idx on calls (customer_id, to_number, started_at desc, id desc)`,
    `create index calls_customer_external_started_idx on calls (customer_id, external_id, started_at desc, id desc)
      where external_id is not null`,
    `create index calls_customer_reason_started_idx
      on calls (customer_id, disconnect_reason, started_at desc, id desc)`,
    `create index calls_customer_updated_idx on calls (customer_id, updated_at)`,
    `create index calls_customer_duration_idx on calls (customer_id, duration_seconds)`,
    `create index calls_customer_cost_idx on calls (customer_id, cost_usd)`,
    `create index calls_metadata_terms_idx on calls using gin (calls_metadata_terms(customer_id, metadata))
      where metadata is not null`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `drop index calls_metadata_terms_idx`,
    `drop index calls_customer_cost_idx`,
    `drop index calls_customer_duration_idx`,
    `drop index calls_customer_updated_idx`,
    `drop index calls_customer_reason_started_idx`,
    `drop index calls_customer_external_started_idx`,
    `drop index calls_customer_to_started_idx`,
    `drop index calls_customer_from_started_idx`,
    `drop function calls_metadata_terms(uuid, jsonb)`,
  ]);
}
