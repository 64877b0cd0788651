/**
 * What PostgreSQL spends per webhook delivery on the outbox alone: the worker's own statements (`claimDue`, then
 * `completeAttempts` with a 200 for each) run back to back on one connection over `deliveries` pending rows of 10
 * subscriptions, with nothing sent, and the CPU of that connection's backend read from `/proc` before and after.
 * `--variant NAME` changes the scratch schema first, to see what one part costs (the twentieth section of
 * docs/performance.md). The cost is also given per tenth of the drain, since on a server whose autovacuum is off it
 * rises as delivered rows pile up; `--vacuum-every S` vacuums the queues every S seconds from a second connection,
 * as the worker's own vacuum does (src/maintenance/own-vacuum.ts), and counts that connection's CPU apart (the
 * twenty-third section). `--ids random` gives the events and deliveries random ids (version 4) instead of ones that
 * grow with the time they are written (version 7, as the service makes them), to see what random keys cost the
 * indexes they land in (the twenty-seventh section).
 *
 *   DATABASE_URL=postgres://… node bench/probes/outbox-cost.ts [--deliveries 100000] [--variant NAME] [--vacuum-every S]
 *     [--ids time-ordered|random]
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { migrateToLatest, openDatabase } from '../../src/db/index.ts';
import { startLoop } from '../../src/loop.ts';
import { vacuumQueues } from '../../src/maintenance/own-vacuum.ts';
import { inSchema } from '../../src/testing/test-database.ts';
import { completeAttempts } from '../../src/webhooks/complete-attempts.ts';
import { claimDue } from '../../src/webhooks/deliveries.repository.ts';
import { liveProcessSeconds } from '../lib/cpu-meter.ts';

const PARTS = {
  'no-attempts-fk': 'alter table webhook_attempts drop constraint webhook_attempts_delivery_id_fkey',
  'no-attempts-time-idx': 'drop index webhook_attempts_time_idx',
  'no-deliveries-event-idx': 'drop index webhook_deliveries_event_idx',
};
const VARIANTS: Record<string, string[]> = {
  none: [],
  ...Object.fromEntries(Object.entries(PARTS).map(([name, statement]) => [name, [statement]])),
  'none-of-the-three': Object.values(PARTS),
};

const { values } = parseArgs({
  options: {
    deliveries: { type: 'string', default: '100000' },
    variant: { type: 'string', default: 'none' },
    'vacuum-every': { type: 'string', default: '0' },
    ids: { type: 'string', default: 'time-ordered' },
  },
});
const total = Number(values.deliveries);
const variant = VARIANTS[values.variant];
const url = process.env.DATABASE_URL;
if (!url || !variant) throw new Error(`Set DATABASE_URL; variants: ${Object.keys(VARIANTS).join(', ')}`);
// The ids as the service makes them (version 7: migration 20261130_1000), or random ones (version 4) as it made
// them before.
const IDS: Record<string, string> = { 'time-ordered': 'uuid_time_ordered()', random: 'gen_random_uuid()' };
const newId = IDS[values.ids];
if (!newId) throw new Error(`ids: ${Object.keys(IDS).join(', ')}`);

const schema = `outbox_probe_${process.pid}`;
const admin = await openDatabase({ url, poolSize: 1 });
await sql.raw(`create schema ${schema}`).execute(admin.db);
const handle = await openDatabase({ url: inSchema(url, schema), poolSize: 1 });
const vacuumer = await openDatabase({ url: inSchema(url, schema), poolSize: 1 });
const { db } = handle;
const backendPid = async (d: typeof db) =>
  (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(d)).rows[0]?.pid ?? 0;
try {
  await migrateToLatest(db);
  for (const statement of variant) await sql.raw(statement).execute(db);
  const customer = randomUUID();
  const now = new Date(Date.now() - 1000);
  await sql`insert into customers (id, name, created_at) values (${customer}, 'probe', ${now})`.execute(db);
  await sql`insert into webhook_subscriptions (id, customer_id, url, events, events_key, description,
      secret_encrypted, is_active, consecutive_failures, created_at, livemode)
    select 'wh_probe_' || i, ${customer}, 'https://127.0.0.1/' || i, array['call.completed'], 'call.completed#' || i,
      'probe', 'x', true, 0, ${now}, true
    from generate_series(1, 10) i`.execute(db);
  const events = Math.ceil(total / 10);
  await sql`insert into events (id, customer_id, type, sequence, data, occurred_at)
    select ${sql.raw(newId)}, ${customer}, 'call.completed', i, '{"call_id":"probe"}'::jsonb, ${now}
    from generate_series(1, ${events}) i`.execute(db);
  await sql`insert into webhook_deliveries (id, event_id, subscription_id, customer_id, status, attempts,
      next_attempt_at, created_at)
    select ${sql.raw(newId)}, e.id, s.id, ${customer}, 'pending', 0, ${now}, ${now}
    from events e cross join webhook_subscriptions s`.execute(db);
  await sql`vacuum analyze`.execute(db);

  const backend = await backendPid(db);
  const room = { limit: 100, rooms: new Map<string, number>(), others: 10 };
  const vacuum = { pid: await backendPid(vacuumer.db), runs: 0 };
  const vacuumCpu0 = liveProcessSeconds(vacuum.pid);
  const everyMs = Number(values['vacuum-every']) * 1000;
  const vacuuming =
    everyMs > 0
      ? startLoop({ name: 'probe vacuum', intervalMs: everyMs, logger: console }, async () => {
          await vacuumQueues(vacuumer.db);
          vacuum.runs++;
        })
      : null;
  const cpu0 = liveProcessSeconds(backend);
  const t0 = performance.now();
  let done = 0;
  let claiming = 0;
  const tenth = Math.ceil(total / 10);
  const tenths: { delivered: number; postgresUsPerDelivery: number; perSecond: number }[] = [];
  let mark = { cpu: cpu0, at: t0, done: 0 };
  for (;;) {
    const c0 = liveProcessSeconds(backend);
    const claimed = await claimDue(db, new Date(), room, 30_000);
    claiming += liveProcessSeconds(backend) - c0;
    if (claimed.length === 0) break;
    const at = new Date();
    await completeAttempts(
      db,
      claimed.map((c) => ({
        deliveryId: c.id,
        subscriptionId: c.subscription_id,
        startedAt: at,
        at,
        statusCode: 200,
        latencyMs: 1,
        error: null,
        responseExcerpt: null,
        status: 'delivered' as const,
        nextAttemptAt: at,
      })),
    );
    done += claimed.length;
    if (done - mark.done >= tenth) {
      const now = { cpu: liveProcessSeconds(backend), at: performance.now(), done };
      tenths.push({
        delivered: done,
        postgresUsPerDelivery: Math.round(((now.cpu - mark.cpu) * 1e6) / (done - mark.done)),
        perSecond: Math.round(((done - mark.done) * 1000) / (now.at - mark.at)),
      });
      mark = now;
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = liveProcessSeconds(backend) - cpu0;
  await vacuuming?.stop();
  console.log(
    JSON.stringify({
      variant: values.variant,
      ids: values.ids,
      deliveries: done,
      perSecond: Math.round(done / seconds),
      postgresUsPerDelivery: Math.round((cpu * 1e7) / done) / 10,
      ofWhichClaim: Math.round((claiming * 1e7) / done) / 10,
      vacuums: vacuum.runs,
      vacuumUsPerDelivery: Math.round(((liveProcessSeconds(vacuum.pid) - vacuumCpu0) * 1e7) / done) / 10,
      tenths,
    }),
  );
} finally {
  await handle.close();
  await vacuumer.close();
  await sql.raw(`drop schema ${schema} cascade`).execute(admin.db);
  await admin.close();
}
