import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { pino } from 'pino';
import { seedDataset } from '../../src/cli/seed-dataset.ts';
import { systemClock } from '../../src/clock.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { type Database, type DatabaseHandle, openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { createWebhookSender } from '../../src/delivery/http-sender.ts';
import { newWebhookSecret } from '../../src/delivery/signature.ts';
import { newSubscriptionId } from '../../src/ids.ts';
import { createKeyHasher } from '../../src/keys/key-hash.ts';
import type { Loop } from '../../src/loop.ts';
import { startOwnVacuum } from '../../src/maintenance/own-vacuum.ts';
import { DEFAULT_OUTBOUND_LIMITS } from '../../src/outbound-limits.ts';
import { createDeliveryWorker, type DeliveryWorker } from '../../src/webhooks/delivery-worker.ts';
import { envelopeOf } from '../../src/webhooks/envelope.ts';
import { recordEvents } from '../../src/webhooks/events.repository.ts';
import { signedPosts } from '../floors/webhook-posts.ts';
import { dropDatabase, ensureDatabase, siblingDatabaseUrl } from '../lib/backend.ts';
import type { Ctx } from '../lib/context.ts';
import { cpuMeter, describeSpend } from '../lib/cpu-meter.ts';
import { BENCH_SERVER_SECRET } from '../lib/paths.ts';
import { sleep } from '../lib/proc.ts';
import { type Receivers, startReceivers } from '../lib/receivers-client.ts';
import { type HangPair, type HangRun, type Latency, webhookRows } from './s4-rows.ts';

/** As the service runs its worker (src/worker.ts with the default configuration). */
export const WORKER = { concurrency: 100, perSubscription: 10, timeoutMs: 10_000, pollMs: 200 };
const CALLS = 1000;
const WEBHOOK_DB = 'voice_calls_bench_webhooks';

/** A fresh database for this scenario alone (its outbox grows by millions of rows), removed afterwards. */
async function freshDatabase(ctx: Ctx): Promise<DatabaseHandle & { drop(): Promise<void> }> {
  if (ctx.backend.name === 'postgres' && ctx.opts.databaseUrl) {
    const admin = ctx.opts.databaseUrl;
    await dropDatabase(admin, WEBHOOK_DB);
    await ensureDatabase(admin, WEBHOOK_DB);
    const h = await openDatabase({ url: siblingDatabaseUrl(admin, WEBHOOK_DB), poolSize: 10 });
    await migrateToLatest(h.db);
    return { ...h, drop: () => dropDatabase(admin, WEBHOOK_DB) };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voice-bench-webhooks-'));
  const h = await openDatabase({ pgliteDir: dir });
  await migrateToLatest(h.db);
  return { ...h, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

type Stage = { db: Database; customerId: string; callIds: string[] };

const eventData = (callId: string, n: number) => ({
  call_id: callId,
  direction: n % 3 ? 'incoming' : 'outgoing',
  status: 'completed',
  started_at: new Date(Date.now() - 300_000).toISOString(),
  ended_at: new Date().toISOString(),
  duration_seconds: 120 + (n % 240),
  from_number: '+14155550123',
  to_number: '+12125550188',
  assistant_id: '7d9f1f5e-3c1b-4b8e-9a57-1f0b8f3c2d11',
  cost: 0.18,
  summary: 'Caller booked an appointment for next Tuesday at 10am.',
});

let eventCounter = 0;

/**
 * Records `n` call.completed events in transactions of `batch`, each transaction one `recordEvents` statement
 * (events, their outbox rows and the workers' wake-up), as a burst is recorded.
 */
async function recordBatches(s: Stage, n: number, batch: number, onCommit?: (ids: string[]) => void) {
  for (let done = 0; done < n; done += batch) {
    const events = Array.from({ length: Math.min(batch, n - done) }, () => {
      const callId = s.callIds[eventCounter++ % s.callIds.length] ?? '';
      return {
        customerId: s.customerId,
        type: 'call.completed' as const,
        callId,
        data: eventData(callId, eventCounter),
        occurredAt: new Date(),
      };
    });
    const rows = await s.db.transaction().execute((tx) => recordEvents(tx, events));
    onCommit?.(rows.map((r) => r.id));
  }
}

async function addSubscriptions(s: Stage, urls: string[], sealed: string): Promise<string[]> {
  const now = new Date();
  const rows = urls.map((url, i) => ({
    id: newSubscriptionId(),
    customer_id: s.customerId,
    url,
    events: ['call.completed'],
    events_key: `call.completed#${i}-${now.getTime()}`,
    description: 'bench',
    secret_encrypted: sealed,
    previous_secret_encrypted: null,
    previous_secret_expires_at: null,
    is_active: true,
    consecutive_failures: 0,
    disabled_at: null,
    disabled_reason: null,
    created_at: now,
    deleted_at: null,
    livemode: true,
  }));
  await s.db.insertInto('webhook_subscriptions').values(rows).execute();
  return rows.map((r) => r.id);
}

async function pendingOf(db: Database, subs: string[]): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*)::text as n from webhook_deliveries
    where status = 'pending' and subscription_id = any(${subs}::text[])`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/**
 * Starts the worker and times until every delivery to `subs` is durably marked delivered: watches the
 * receivers' counts (cheap) until they reach `expected`, then the database until nothing is pending.
 * Both are polled every 10 ms: quick runs drain in under a second, where polling every 50–100 ms made the
 * measured rates swing by tens of percent.
 */
async function drain(
  s: Stage,
  worker: DeliveryWorker,
  receivers: Receivers,
  subs: string[],
  expected: number,
  boundMs: number,
): Promise<{ seconds: number; delivered: number; complete: boolean }> {
  await receivers.reset();
  const started = performance.now();
  worker.start();
  const deadline = started + boundMs;
  let received = 0;
  while (performance.now() < deadline) {
    const { counts } = await receivers.counts();
    received = counts.reduce((a, b) => a + b, 0);
    if (received >= expected) break;
    await sleep(10);
  }
  let pending = await pendingOf(s.db, subs);
  while (pending > 0 && performance.now() < deadline) {
    await sleep(10);
    pending = await pendingOf(s.db, subs);
  }
  const seconds = (performance.now() - started) / 1000;
  return { seconds, delivered: expected - pending, complete: pending === 0 };
}

/**
 * Scenario 4: webhook fan-out with the real delivery worker (createDeliveryWorker + createWebhookSender,
 * the service's defaults) in this process, against receivers in another process.
 */
export async function webhooks(ctx: Ctx): Promise<void> {
  const sizes = ctx.sizes;
  const events = ctx.backend.name === 'postgres' ? sizes.webhookEvents : sizes.webhookEventsEmbedded;
  const nSubs = sizes.webhookSubscriptions;
  const handle = await freshDatabase(ctx);
  const receivers = await startReceivers(nSubs, ctx.backend.env());
  const secretBox = createSecretBox(BENCH_SERVER_SECRET);
  const secret = newWebhookSecret();
  const sender = createWebhookSender({
    timeoutMs: WORKER.timeoutMs,
    allowPrivateTargets: true,
    allowHttp: true,
    ca: ctx.backend.tls.cert,
  });
  const logger = pino({ level: 'error' });
  let vacuums: Loop[] = [];
  const newWorker = () =>
    createDeliveryWorker({
      db: handle.db,
      clock: systemClock,
      sender,
      secretBox,
      logger,
      concurrency: WORKER.concurrency,
      perSubscription: WORKER.perSubscription,
      leaseMs: WORKER.timeoutMs * 3,
      pollMs: WORKER.pollMs,
      notifications: handle.notifications,
    });
  try {
    const seeded = await seedDataset(
      handle.db,
      {
        hasher: createKeyHasher(BENCH_SERVER_SECRET),
        clock: systemClock,
        outboundDefaults: DEFAULT_OUTBOUND_LIMITS,
      },
      {
        customers: 1,
        assistantsPerCustomer: 1,
        calls: CALLS,
        keysPerCustomer: 0,
        days: 1,
        batchSize: CALLS,
        customerRateLimit: 600,
        keyRateLimit: null,
      },
    );
    const customerId = seeded.customers[0] ?? '';
    const calls = await handle.db
      .selectFrom('calls')
      .select('id')
      .where('customer_id', '=', customerId)
      .execute();
    const stage: Stage = { db: handle.db, customerId, callIds: calls.map((c) => c.id) };
    const subs = await addSubscriptions(stage, receivers.urls, secretBox.seal(secret));

    // Floor: the same client and concurrency, no database.
    const sample = {
      id: 'evt',
      type: 'call.completed' as const,
      occurred_at: new Date(),
      sequence: 1,
      livemode: true,
    };
    const body = JSON.stringify(envelopeOf({ ...sample, data: eventData('call', 1) }));
    if (sizes.label === 'full')
      await signedPosts({
        sender,
        urls: receivers.urls,
        secret,
        body,
        concurrency: WORKER.concurrency,
        seconds: 1,
      });
    const meter = cpuMeter({ receiversPid: receivers.pid, postgres: ctx.backend.name === 'postgres' });
    const floorStart = meter?.mark();
    const floor = await signedPosts({
      sender,
      urls: receivers.urls,
      secret,
      body,
      concurrency: WORKER.concurrency,
      seconds: sizes.loadSeconds,
    });
    const floorCpu = floorStart && meter?.since(floorStart);
    ctx.log(`  webhook floor: ${Math.round(floor.perSecond)} signed POSTs/s`);

    // Throughput: events × subscriptions deliveries, recorded first, then drained.
    const recordStart = performance.now();
    await recordBatches(stage, events, 100);
    const recordSeconds = (performance.now() - recordStart) / 1000;
    ctx.log(
      `  recorded ${events} events in ${recordSeconds.toFixed(1)} s; draining ${events * nSubs} deliveries`,
    );
    let worker = newWorker();
    // As the worker process runs them beside its deliveries: on PGlite, and on a server whose autovacuum is off.
    vacuums = startOwnVacuum(handle.db, handle.kind, logger);
    const drainStart = meter?.mark();
    const throughput = await drain(stage, worker, receivers, subs, events * nSubs, 3_600_000);
    const drainCpu = drainStart && meter?.since(drainStart);
    await worker.stop();
    ctx.log(
      `  drained in ${throughput.seconds.toFixed(1)} s: ${Math.round(throughput.delivered / throughput.seconds)}/s`,
    );

    /**
     * Events at a steady rate with a fresh worker running. What a run could not deliver in time is dropped
     * afterwards, so the next runs start from an empty queue.
     */
    const steadyRun = async (perSecond: number, seconds: number, o?: SteadyOptions) => {
      worker = newWorker();
      await receivers.reset();
      worker.start();
      const measured = await steadyLatency(stage, receivers, nSubs, perSecond, seconds, o);
      await worker.stop();
      await sql`delete from webhook_deliveries where status = 'pending'`.execute(handle.db);
      return measured;
    };
    const logLatency = (l: Latency) =>
      ctx.log(`  latency at ${Math.round(l.achievedPerSecond)} events/s: p99 ${l.p99.toFixed(0)} ms`);

    // Latency at a steady event rate, worker running.
    const latency = await steadyRun(sizes.latencyEventsPerSecond, sizes.latencySeconds);
    logLatency(latency);
    // The same at a tenth of the rate, which one worker drains here: commit → receipt without a queue.
    const calmLatency = await steadyRun(sizes.latencyEventsPerSecond / 10, sizes.latencySeconds);
    logLatency(calmLatency);

    // A burst with a blip: the same steady rate while the first receiver answers 500 for 2 s, one second in.
    // Its failed deliveries are retried 10 s (±20 %) later, and the run queues more than the worker drains per
    // second: the wait covers the retries and three times the backlog at the rate measured above. Three, because
    // the drain above ran alone, and beside a producer the worker drains slower (PGlite, full run of 2026-11-25
    // 22:18: a bound of once the backlog left 88 of 66,410 deliveries on their way). The wait ends as soon as
    // everything has arrived, so a wider bound costs nothing when it does.
    const drainRate = throughput.delivered / throughput.seconds;
    const blipWaitMs =
      15_000 + ((3 * sizes.blipSeconds * sizes.latencyEventsPerSecond * nSubs) / drainRate) * 1000;
    const blipLatency = await steadyRun(sizes.latencyEventsPerSecond, sizes.blipSeconds, {
      waitMs: blipWaitMs,
      blip: { atMs: 1_000, receiver: 0, ms: 2_000 },
    });
    const { blipped } = await receivers.counts();
    const blipSub = await handle.db
      .selectFrom('webhook_subscriptions')
      .select(['is_active', 'consecutive_failures'])
      .where('id', '=', subs[0] ?? '')
      .executeTakeFirstOrThrow();
    const blipRun = { latency: blipLatency, blipped, ...blipSub };
    ctx.log(
      `  burst with a blip at ${Math.round(blipLatency.achievedPerSecond)} events/s: ${blipped} answers 500, ${blipLatency.received} of ${blipLatency.expected} delivered, p99 ${blipLatency.p99.toFixed(0)} ms, ${blipSub.is_active ? 'still active' : 'DISABLED'} (streak ${blipSub.consecutive_failures})`,
    );

    // A receiver that never answers: the other ten's rate with and without it. Each run starts from a vacuumed
    // outbox: every drain before leaves a dead due-index entry per delivery (this server may not vacuum, PGlite
    // never does), and without it a later run would walk the earlier ones' and be slower for that alone. One
    // pair swings by about ±0.1 between identical runs, so the pairs are repeated, in alternating order, and the
    // row reads the median pair. Between runs the hung requests are ended and the hanging subscription's
    // deliveries removed, so each run starts with every slot free and the subscription as new.
    const hang = ctx.backend.name === 'postgres' ? sizes.hangEvents : sizes.hangEventsEmbedded;
    const [hangSub = ''] = await addSubscriptions(stage, [receivers.hangUrl], secretBox.seal(secret));
    const hangRun = async (withHung: boolean): Promise<HangRun> => {
      await sql`update webhook_subscriptions set is_active = ${withHung}, consecutive_failures = 0,
        failure_counted_at = null, disabled_at = null, disabled_reason = null where id = ${hangSub}`.execute(
        handle.db,
      );
      await sql`vacuum webhook_deliveries`.execute(handle.db);
      await recordBatches(stage, hang, 100);
      worker = newWorker();
      const runStart = meter?.mark();
      const drained = await drain(stage, worker, receivers, subs, hang * nSubs, 600_000);
      const cpu = runStart && meter?.since(runStart);
      if (cpu)
        ctx.log(
          `    ${withHung ? 'beside a hung receiver' : 'alone'}: CPU per delivery ${describeSpend(cpu, drained.delivered, { postgres: true })}`,
        );
      const { hung } = await receivers.counts();
      // Stopping waits for the attempts out. The hung ones are ended, again until it returns: while the worker
      // runs, each ended one frees a slot that the next hung delivery takes.
      let stopped = false;
      const stopping = worker.stop().then(() => {
        stopped = true;
      });
      while (!stopped) {
        await receivers.release();
        await Promise.race([stopping, sleep(20)]);
      }
      await sql`delete from webhook_deliveries where subscription_id = ${hangSub}`.execute(handle.db);
      return { ...drained, hung };
    };
    const hangPairs: HangPair[] = [];
    for (let round = 0; round < sizes.hangRounds; round++) {
      const hungFirst = round % 2 === 1;
      const first = await hangRun(hungFirst);
      const second = await hangRun(!hungFirst);
      const pair = hungFirst ? { base: second, withHang: first } : { base: first, withHang: second };
      hangPairs.push(pair);
      const rate = (d: HangRun) => Math.round((hang * nSubs) / d.seconds);
      ctx.log(
        `  healthy rate ${rate(pair.base)}/s alone, ${rate(pair.withHang)}/s beside a hung receiver (${pair.withHang.hung} hung requests)`,
      );
    }

    // A drain leaves a dead due-index entry per delivery until a vacuum; whether the server vacuums matters.
    const autovacuum =
      ctx.backend.name === 'postgres'
        ? ((await sql<{ autovacuum: string }>`show autovacuum`.execute(stage.db)).rows[0]?.autovacuum ?? null)
        : null;
    webhookRows(ctx, {
      events,
      autovacuum,
      subscriptions: nSubs,
      floor,
      cpu: floorCpu && drainCpu ? { floor: floorCpu, drain: drainCpu } : null,
      recordSeconds,
      throughput,
      latency,
      calmLatency,
      hangPairs,
      worker: { concurrency: WORKER.concurrency, perSubscription: WORKER.perSubscription },
      blip: blipRun,
    });
  } finally {
    await Promise.all(vacuums.map((v) => v.stop()));
    await receivers.close();
    await sender.close();
    await handle.close();
    await handle.drop();
  }
}

/** How long to wait for the deliveries after the last event, and a receiver that answers 500 for a while. */
type SteadyOptions = { waitMs?: number; blip?: { atMs: number; receiver: number; ms: number } };

/**
 * Records events at `perSecond` for `seconds` (a transaction every 10 ms with the events due by then),
 * noting each commit time, and measures commit → receipt of every delivery.
 */
async function steadyLatency(
  s: Stage,
  receivers: Receivers,
  nSubs: number,
  perSecond: number,
  seconds: number,
  o: SteadyOptions = {},
): Promise<Latency> {
  const committed = new Map<string, number>();
  const started = performance.now();
  const end = started + seconds * 1000;
  let recorded = 0;
  let blip = o.blip;
  while (performance.now() < end) {
    if (blip && performance.now() - started >= blip.atMs) {
      await receivers.blip(blip.receiver, blip.ms);
      blip = undefined;
    }
    const due = Math.floor(((performance.now() - started) / 1000) * perSecond) - recorded;
    if (due > 0) {
      const n = Math.min(due, Math.ceil(perSecond / 20));
      await recordBatches(s, n, n, (ids) => {
        const at = performance.timeOrigin + performance.now();
        for (const id of ids) committed.set(id, at);
      });
      recorded += n;
    }
    await sleep(10);
  }
  const producedSeconds = (performance.now() - started) / 1000;
  const expected = recorded * nSubs;
  const deadline = performance.now() + (o.waitMs ?? 2_000 + seconds * 2000);
  for (;;) {
    const { counts } = await receivers.counts();
    if (counts.reduce((a, b) => a + b, 0) >= expected || performance.now() > deadline) break;
    await sleep(200);
  }
  // Deliveries still unsent are left to the next drain; they do not count here.
  const latencies: number[] = [];
  for (const [eventId, , at] of await receivers.records()) {
    const c = committed.get(eventId);
    if (c !== undefined) latencies.push(at - c);
  }
  latencies.sort((a, b) => a - b);
  // Deliveries that never arrived within the bound count as slower than every measured one.
  const pct = (p: number) => {
    const i = Math.ceil((p / 100) * expected) - 1;
    return i < latencies.length ? (latencies[Math.max(0, i)] ?? 0) : Number.POSITIVE_INFINITY;
  };
  return {
    askedPerSecond: perSecond,
    achievedPerSecond: recorded / producedSeconds,
    events: recorded,
    received: latencies.length,
    expected,
    p50: pct(50),
    p99: pct(99),
    max: latencies.at(-1) ?? 0,
  };
}
