import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Ids that grow with the time they are made (RFC 9562 version 7: the millisecond in the first 48 bits, the rest
 * random), for the outbox rows PostgreSQL writes itself (one delivery per subscription an event goes to); the
 * events' own come from `newTimeOrderedUuid` (src/ids.ts). A delivery's outcome cannot be a HOT update (its status
 * leaves the pending indexes), so it adds an entry to each of the table's other indexes, two of them keyed by the
 * row's id and event id, and its attempt one keyed by the delivery's id: random ids put those on pages all over the
 * indexes, time-ordered ones on the few the drain is working through. 13 % less of PostgreSQL's time per delivery
 * (bench/probes/outbox-cost.ts; docs/performance.md, twenty-seventh section). PostgreSQL before 18 and PGlite have
 * no uuidv7(), hence the function.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `create function uuid_time_ordered() returns uuid language sql volatile parallel safe as $$
      select encode(
        set_byte(
          overlay(uuid_send(gen_random_uuid())
            placing substring(int8send(floor(extract(epoch from clock_timestamp()) * 1000)::bigint) from 3)
            from 1 for 6),
          6, (get_byte(uuid_send(gen_random_uuid()), 6) & 15) | 112),
        'hex')::uuid
    $$`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [`drop function uuid_time_ordered()`]);
}
