import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import type { Database, DatabaseHandle } from '../db/index.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { databaseAtMigration } from '../testing/test-database.ts';
import type { ClaimRoom } from './claim-room.ts';
import { claimDue } from './deliveries.repository.ts';

const HUNG = 'sub_hung';
const HEALTHY = Array.from({ length: 10 }, (_, i) => `sub_ok_${i}`);
const ROOM: ClaimRoom = { limit: 90, rooms: new Map([[HUNG, 0]]), others: 10 };

/**
 * The claim's SQL as claimDue sends it: its one query is caught instead of run. (A proxy rather than a seam in
 * the repository: only the plan is asked for here; the methods are bound to the real instance, whose fields are
 * private.)
 */
async function claimQuery(db: Database): Promise<CompiledQuery> {
  let caught: CompiledQuery | undefined;
  const catching = new Proxy(db, {
    get(target, key) {
      if (key === 'executeQuery')
        return async (q: CompiledQuery) => {
          caught = q;
          return { rows: [] };
        };
      const value = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  await claimDue(catching, new Date(), ROOM, 60_000);
  assert.ok(caught, 'claimDue sent its query');
  return caught;
}

/** The claim's plan for these values, and the one planned once for any (what a named statement settles on). */
async function claimPlans(db: Database): Promise<{ custom: string; generic: string }> {
  const q = await claimQuery(db);
  const text = (rows: unknown[]) => rows.map((r) => (r as { 'QUERY PLAN': string })['QUERY PLAN']).join('\n');
  const custom = text(
    (await db.executeQuery(CompiledQuery.raw(`explain (costs off) ${q.sql}`, [...q.parameters]))).rows,
  );
  const generic = await db.connection().execute(async (conn) => {
    await sql`set plan_cache_mode = force_generic_plan`.execute(conn);
    await sql.raw(`prepare claim_plan as ${q.sql}`).execute(conn);
    try {
      // EXECUTE takes no bind parameters: the values go in as literals.
      const literal = (v: unknown) =>
        typeof v === 'number'
          ? String(v)
          : `'${(v instanceof Date ? v.toISOString() : String(v)).replaceAll("'", "''")}'`;
      const args = q.parameters.map(literal).join(', ');
      return text((await sql.raw(`explain (costs off) execute claim_plan(${args})`).execute(conn)).rows);
    } finally {
      await sql`deallocate claim_plan`.execute(conn);
      await sql`reset plan_cache_mode`.execute(conn);
    }
  });
  return { custom, generic };
}

/**
 * `n` events, each with a delivery to every one of `subscriptions`, in `status`, due `dueMinutesAgo` minutes ago
 * (older rows first), stored event by event as `recordEvents` stores them: one statement per table.
 */
async function deliveries(
  db: Database,
  o: { subscriptions: string[]; n: number; status: 'pending' | 'delivered'; dueMinutesAgo: number },
) {
  const batch = `b${Math.random().toString(36).slice(2)}`;
  await sql`
    insert into events (id, customer_id, type, sequence, data, occurred_at)
    select gen_random_uuid(), c.id, 'call.completed', g, jsonb_build_object('batch', ${batch}::text), now()
    from customers c, generate_series(1, ${o.n}::int) g`.execute(db);
  await sql`
    insert into webhook_deliveries (id, event_id, subscription_id, customer_id, status, next_attempt_at, created_at)
    select gen_random_uuid(), e.id, s.id, e.customer_id, ${o.status}::text,
      now() - make_interval(mins => ${o.dueMinutesAgo}::int) + e.sequence * interval '1 ms', now()
    from events e cross join unnest(${o.subscriptions}::text[]) as s(id)
    where e.data ->> 'batch' = ${batch}
    order by e.sequence, s.id`.execute(db);
}

/**
 * Whatever the statistics ANALYZE last took of the outbox, the claim reads each subscription's own stretch of
 * `webhook_deliveries_due_by_subscription_idx` and finds its rows by key. An outbox analyzed while nothing was
 * pending (its usual state between bursts) once made the planner walk the due index instead: 3 ms claims became
 * 56 ms beside a hung receiver's backlog (docs/performance.md, twenty-fourth section).
 */
describe('the claim’s plan does not follow the outbox’s last statistics', () => {
  let handle: DatabaseHandle;
  before(async () => {
    handle = await databaseAtMigration('20261121_0001_foundation');
    await migrateToLatest(handle.db);
    const { db } = handle;
    await sql`insert into customers (id, name, created_at) values (gen_random_uuid(), 'plans', now())`.execute(
      db,
    );
    await sql`
      insert into webhook_subscriptions (id, customer_id, url, events, events_key, secret_encrypted, created_at)
      select s.id, c.id, 'https://hooks.example.com/' || s.id, '{call.completed}', s.id, 'sealed', now()
      from customers c cross join unnest(${[HUNG, ...HEALTHY]}::text[]) as s(id)`.execute(db);
    // A day of traffic, all delivered, analyzed as autovacuum (or the worker's own vacuum) finds it between bursts.
    await deliveries(db, { subscriptions: HEALTHY, n: 2_000, status: 'delivered', dueMinutesAgo: 60 });
    await sql`analyze webhook_deliveries`.execute(db);
    // Then a burst: the hung receiver's backlog due first, everyone else's behind it.
    await deliveries(db, { subscriptions: [HUNG], n: 1_000, status: 'pending', dueMinutesAgo: 20 });
    await deliveries(db, { subscriptions: HEALTHY, n: 200, status: 'pending', dueMinutesAgo: 10 });
  });
  after(() => handle.close());

  const assertByOwnStretch = (plan: string) => {
    // Each subscription's due rows from its own stretch of the per-subscription index…
    assert.match(
      plan,
      /Index Scan using webhook_deliveries_due_by_subscription_idx on webhook_deliveries d_1\s+Index Cond: \(\(subscription_id = p\.subscription_id\)/,
      plan,
    );
    // …and each one offered locked by its key.
    assert.match(
      plan,
      /Index Scan using webhook_deliveries_pkey on webhook_deliveries d\s+Index Cond: \(id = o\.id\)/,
      plan,
    );
  };

  it('analyzed while nothing was pending, then a backlog behind a hung receiver', async () => {
    const { custom, generic } = await claimPlans(handle.db);
    assertByOwnStretch(custom);
    assertByOwnStretch(generic);
  });

  it('analyzed in the middle of that backlog, then another burst once it drained', async () => {
    const { db } = handle;
    await sql`update webhook_deliveries set leased_until = now() + interval '30 seconds'
      where status = 'pending' and subscription_id = ${HEALTHY[0]}`.execute(db);
    await sql`analyze webhook_deliveries`.execute(db);
    await sql`update webhook_deliveries set status = 'delivered', leased_until = null where status = 'pending'`.execute(
      db,
    );
    await deliveries(db, { subscriptions: [HUNG], n: 1_000, status: 'pending', dueMinutesAgo: 5 });
    await deliveries(db, { subscriptions: HEALTHY, n: 200, status: 'pending', dueMinutesAgo: 2 });
    const { custom, generic } = await claimPlans(handle.db);
    assertByOwnStretch(custom);
    assertByOwnStretch(generic);
  });
});
