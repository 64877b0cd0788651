import { sql } from 'kysely';
import { CALL_COLUMNS, insertCallsSelected } from '../calls/index.ts';
import type { Database } from '../db/index.ts';

/**
 * What the seed makes up: every column but those only a live request sets, and the mode (seeded calls are live);
 * the rest is a new call's (`newCallRow`).
 */
const SEEDED_COLUMNS = CALL_COLUMNS.filter(
  (column) => column !== 'metadata' && column !== 'callback_url' && column !== 'livemode',
);

/**
 * Inserts calls numbered [first, last] entirely inside the database (generate_series), so a million
 * rows never cross the wire. Call g belongs to assistant `g % assistants` of the temp table
 * seed_assistants (n, id, customer_id, phone, key_id: the key its API-placed calls name). The mix follows
 * src/demo/call-generator.ts: 35 % outbound (60 % of those placed through the API, half with an external_id), statuses completed 82 %,
 * no_answer 8 %, busy 6 %, failed 4 %; started_at spread over `days` before `end` at microsecond
 * precision; cost 0.09 USD per started minute, as numeric.
 */
export async function insertSeedCalls(
  conn: Database,
  batch: { first: number; last: number; assistants: number; end: Date; days: number },
): Promise<void> {
  const source = sql`
    select gen_random_uuid() as id, customer_id, assistant_id, direction, status, started_at,
      case when answered then started_at + ring * interval '1 second' end as answered_at,
      started_at + (ring + talk) * interval '1 second' as ended_at,
      talk as duration_seconds,
      case when direction = 'outbound' then phone else other end as from_number,
      case when direction = 'outbound' then other else phone end as to_number,
      case when direction = 'inbound' then (array['Maria Garcia', 'James Smith', 'Wei Chen', 'Aisha Khan',
        'Lucas Martin', 'Emma Dubois', 'Noah Wilson', 'Olivia Brown', 'Liam Tremblay', 'Sofia Rossi'])[1 + (g % 10)] end
        as caller_name,
      api as api_initiated, case when api then key_id end as api_key_id,
      case when api and r_ext < 0.5 then 'crm-' || g end as external_id,
      case when api and r_ext < 0.5 then jsonb_build_object('first_name', 'Ada', 'ticket', g) end as variables,
      answered as has_transcript, answered and r_rec < 0.9 as recording_available,
      case when answered then (array['Caller booked an appointment for next Tuesday at 10am.',
        'Caller asked about opening hours; assistant answered and the caller hung up satisfied.',
        'Caller wanted to reschedule a delivery; assistant confirmed the new date.',
        'Caller reported a billing question; assistant created a follow-up ticket.',
        'Assistant confirmed an upcoming reservation and the caller accepted.'])[1 + (g % 5)] end as summary,
      case when answered then (array['caller_hangup', 'assistant_hangup'])[1 + (g % 2)] else status end
        as disconnect_reason,
      case when answered then 'conv_' || replace(gen_random_uuid()::text, '-', '') end as conversation_id,
      case when answered then round(ceil(talk / 60.0) * 0.09, 4) else 0 end as cost_usd,
      case when answered then ceil(talk / 60.0)::int * 60 else 0 end as billable_seconds,
      started_at as created_at, started_at + (ring + talk) * interval '1 second' as updated_at
    from (
      select *, status = 'completed' as answered,
        case when status = 'completed' then 20 + floor(r_talk * 600)::int else 0 end as talk
      from (
        select g, a.customer_id, a.id as assistant_id, a.phone, a.key_id,
          case when r_dir < 0.35 then 'outbound' else 'inbound' end as direction,
          r_dir < 0.35 and r_api < 0.6 as api,
          case when r_status < 0.82 then 'completed' when r_status < 0.90 then 'no_answer'
            when r_status < 0.96 then 'busy' else 'failed' end as status,
          ${batch.end}::timestamptz - r_time * ${batch.days} * interval '1 day' as started_at,
          2 + floor(r_ring * 12)::int as ring,
          '+1' || (array['212', '415', '312', '617', '206', '416', '604', '514', '303', '512'])[1 + floor(r_other * 10)::int]
            || '55501' || lpad(floor(r_line * 100)::int::text, 2, '0') as other,
          r_talk, r_ext, r_rec
        from (
          select g, random() as r_dir, random() as r_api, random() as r_status, random() as r_time,
            random() as r_ring, random() as r_talk, random() as r_other, random() as r_line,
            random() as r_ext, random() as r_rec
          from generate_series(${batch.first}::bigint, ${batch.last}::bigint) as g
        ) r
        join seed_assistants a on a.n = g % ${batch.assistants}
      ) s
    ) x`;
  await insertCallsSelected(conn, SEEDED_COLUMNS, source);
}
