import { type RawBuilder, sql } from 'kysely';
import type { Database } from './database.ts';
import { asNamedStatement } from './statement-names.ts';

/**
 * The queues (webhook deliveries, callback notifications, transcript jobs) share one claim: rows that are
 * pending, due and not leased are locked `for update skip locked`, so any number of workers claim side by side
 * without taking the same row, then leased until `now + leaseMs` with their attempt counted. A crashed worker's
 * lease simply runs out and the row is due again.
 */
export type Queue = {
  table: 'webhook_deliveries' | 'callback_notifications' | 'transcript_jobs';
  /** The row's key column. */
  key: 'id' | 'call_id';
  /** The column that reads `pending` while the row waits. */
  state: 'status' | 'state';
};

/** The condition on a queue's rows (unqualified columns) that makes one claimable at `now`. */
export const claimable = (queue: Queue, now: Date): RawBuilder<boolean> =>
  sql<boolean>`${sql.ref(queue.state)} = 'pending' and next_attempt_at <= ${now}
    and (leased_until is null or leased_until <= ${now})`;

/**
 * Leases the rows whose keys `picked` selects (a `select <key> … for update skip locked` over claimable rows)
 * and returns `returning`, evaluated over the queue's row as `q`; `join` adds tables to read from, with their
 * conditions in `joinOn`. A named statement: planning the webhook claim each time cost PostgreSQL about 12 µs per
 * delivery claimed, a third of the claim (docs/performance.md, "2026-11-25 (eighth)").
 */
export async function leaseRows<R>(
  db: Database,
  queue: Queue,
  o: {
    picked: RawBuilder<unknown>;
    now: Date;
    leaseMs: number;
    returning: RawBuilder<unknown>;
    join?: { from: RawBuilder<unknown>; on: RawBuilder<unknown> };
  },
): Promise<R[]> {
  const key = sql.ref(`q.${queue.key}`);
  const query = sql<R>`
    update ${sql.table(queue.table)} q
    set leased_until = ${new Date(o.now.getTime() + o.leaseMs)}, attempts = q.attempts + 1
    from (${o.picked}) picked${o.join ? sql`, ${o.join.from}` : sql``}
    where ${key} = picked.${sql.ref(queue.key)}${o.join ? sql` and ${o.join.on}` : sql``}
    returning ${o.returning}`.compile(db);
  const { rows } = await db.executeQuery(asNamedStatement(query));
  return rows;
}

/** The oldest claimable rows of a queue, at most `limit`, leased. */
export const claimOldestDue = <R>(
  db: Database,
  queue: Queue,
  o: { now: Date; limit: number; leaseMs: number; returning: RawBuilder<unknown> },
): Promise<R[]> =>
  leaseRows<R>(db, queue, {
    ...o,
    picked: sql`
      select ${sql.ref(queue.key)} from ${sql.table(queue.table)}
      where ${claimable(queue, o.now)}
      order by next_attempt_at
      limit ${o.limit}
      for update skip locked`,
  });
