import { sql } from 'kysely';
import type { Database } from '../db/index.ts';

/**
 * Seeding (the CLI's `seed`): `count` customers made by the database itself. Leaves their ids in the temp table
 * `seed_customers (n, id)` of the caller's pinned connection, for the assistants and calls seeded after them;
 * returns the ids in order.
 */
export async function seedCustomers(
  conn: Database,
  o: { count: number; rateLimitPerMinute: number; now: Date },
): Promise<string[]> {
  await sql`create temp table seed_customers as
      select (g - 1)::bigint as n, gen_random_uuid() as id from generate_series(1, ${o.count}::int) g`.execute(
    conn,
  );
  await sql`insert into customers (id, name, rate_limit_per_minute, created_at)
      select id, 'Seed customer ' || lpad((n + 1)::text, 6, '0') || ' ' || left(id::text, 8),
        ${o.rateLimitPerMinute}::int, ${o.now}::timestamptz
      from seed_customers`.execute(conn);
  const { rows } = await sql<{ id: string }>`select id from seed_customers order by n`.execute(conn);
  return rows.map((r) => r.id);
}
