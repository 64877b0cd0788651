import { type RawBuilder, sql } from 'kysely';

/**
 * The common table expression `bumped (id, event_seq, livemode)`, for a statement whose `input` has one row per event to
 * number (`call_id`): each call's counter is advanced once by its number of events, under the call's row lock, and
 * `event_seq` is the last number given out. A call that does not exist gets no row.
 */
export const takeEventSequences = (): RawBuilder<unknown> => sql`
    bumped as (
      update calls c set event_seq = c.event_seq + n.n
      from (select call_id, count(*)::int as n from input group by call_id) n
      where c.id = n.call_id
      returning c.id, c.event_seq, c.livemode
    )`;
