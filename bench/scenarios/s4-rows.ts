import type { PostsFloor } from '../floors/webhook-posts.ts';
import { addRaw, addRow, type Ctx } from '../lib/context.ts';
import { type CpuSpend, describeSpend } from '../lib/cpu-meter.ts';
import { fmt, judge } from '../lib/report.ts';

/** Commit → receipt at a steady event rate (measured by s4-webhooks.ts). */
export type Latency = {
  askedPerSecond: number;
  achievedPerSecond: number;
  events: number;
  received: number;
  expected: number;
  p50: number;
  p99: number;
  max: number;
};

type Drain = { seconds: number; delivered: number; complete: boolean };
/** A drain of the healthy subscriptions' deliveries, and how many requests the hanging receiver held. */
export type HangRun = Drain & { hung: number };
export type HangPair = { base: HangRun; withHang: HangRun };

const latencyMs = (n: number) => (Number.isFinite(n) ? `${fmt(n)} ms` : 'not all received');

export function webhookRows(
  ctx: Ctx,
  r: {
    events: number;
    subscriptions: number;
    /** The PostgreSQL server's `autovacuum` setting (null on PGlite, which has none). */
    autovacuum: string | null;
    floor: PostsFloor;
    /** CPU time spent during the floor and during the drain (null where /proc is missing). */
    cpu: { floor: CpuSpend; drain: CpuSpend } | null;
    recordSeconds: number;
    throughput: Drain;
    latency: Latency;
    /** The same at a tenth of the rate. */
    calmLatency: Latency;
    /** The healthy rate without and with a receiver that never answers, repeated in alternating order. */
    hangPairs: HangPair[];
    /** The worker's slots, and each subscription's share of them. */
    worker: { concurrency: number; perSubscription: number };
    blip: { latency: Latency; blipped: number; is_active: boolean; consecutive_failures: number };
  },
): void {
  addRaw(ctx, 's4', r);
  // Issue 17: 0.6 of the floor on PostgreSQL, 0.3 on PGlite (one connection in the worker's own event loop).
  const durableTarget = ctx.backend.name === 'postgres' ? 0.6 : 0.3;
  const rate = r.throughput.delivered / r.throughput.seconds;
  const ratio = rate / r.floor.perSecond;
  addRow(ctx, {
    scenario: 4,
    what: `durable deliveries/s (${fmt(r.events)} events × ${r.subscriptions} subscriptions) ÷ signed POSTs/s, same client`,
    value: `${fmt(rate)}/s vs ${fmt(r.floor.perSecond)}/s`,
    ratio,
    target: `≥ ${durableTarget}`,
    status: judge(ratio >= durableTarget && r.throughput.complete),
    tool: 'bench (undici)',
    note: [
      r.throughput.complete ? '' : `only ${fmt(r.throughput.delivered)} delivered within the bound`,
      r.floor.failed ? `${fmt(r.floor.failed)} floor POSTs failed` : '',
      `events recorded at ${fmt(r.events / r.recordSeconds)}/s`,
      r.autovacuum === 'off'
        ? "this server runs with autovacuum off: the worker's own vacuum of the queues runs every minute"
        : '',
    ]
      .filter(Boolean)
      .join('; '),
  });
  // Machine CPU seconds per durable delivery in the drain.
  const perDelivery = r.cpu ? r.cpu.drain.machine / r.throughput.delivered : null;
  if (r.cpu && perDelivery !== null)
    cpuRow(
      ctx,
      r.cpu,
      { floor: r.floor.posts, drain: r.throughput.delivered },
      perDelivery,
      r.floor.perSecond,
    );
  const l = r.latency;
  const kept = l.achievedPerSecond >= l.askedPerSecond * 0.9;
  const needed = l.expected / Math.max(1, l.events / l.achievedPerSecond);
  addRow(ctx, {
    scenario: 4,
    what: `commit → receipt at ${fmt(l.askedPerSecond)} events/s × ${r.subscriptions} subscriptions (${fmt(l.achievedPerSecond)} events/s recorded)`,
    value: `p50 ${latencyMs(l.p50)}, p99 ${latencyMs(l.p99)}`,
    ratio: Number.isFinite(l.p99) ? l.p99 : null,
    unit: 'ms',
    target: '≤ 300 ms',
    status: judge(Number.isFinite(l.p99) && l.p99 <= 300 && kept),
    tool: 'bench (undici)',
    bySize: 'above the drain rate the queue grows for the whole run, which a quick run keeps short',
    note: [
      `${fmt(l.received)} of ${fmt(l.expected)} deliveries received`,
      `${fmt(needed)} deliveries/s needed vs ${fmt(rate)}/s drained`,
      r.cpu && perDelivery !== null
        ? `at the drain's ${fmt(perDelivery * 1e6)} µs of CPU per delivery, ${(needed * perDelivery).toFixed(2)} of this machine's ${r.cpu.drain.cores} cores`
        : '',
    ]
      .filter(Boolean)
      .join('; '),
  });
  const calm = r.calmLatency;
  addRow(ctx, {
    scenario: 4,
    what: `commit → receipt at ${fmt(calm.askedPerSecond)} events/s × ${r.subscriptions} subscriptions, a rate one worker drains (${fmt(calm.achievedPerSecond)} events/s recorded)`,
    value: `p50 ${latencyMs(calm.p50)}, p99 ${latencyMs(calm.p99)}`,
    ratio: Number.isFinite(calm.p99) ? calm.p99 : null,
    unit: 'ms',
    target: 'report',
    status: 'info',
    tool: 'bench (undici)',
    note: `${fmt(calm.received)} of ${fmt(calm.expected)} deliveries received; the wake-up on commit without a backlog`,
  });
  const healthy = (d: Drain) => d.delivered / d.seconds;
  const hangRatio = (p: HangPair) => healthy(p.withHang) / healthy(p.base);
  const pairs = [...r.hangPairs].sort((a, b) => hangRatio(a) - hangRatio(b));
  const median = pairs[Math.floor((pairs.length - 1) / 2)];
  if (median) {
    const ratio = hangRatio(median);
    addRow(ctx, {
      scenario: 4,
      what: `the 10 healthy receivers' rate beside one that never answers ÷ without it (median of ${pairs.length} pairs)`,
      value: `${fmt(healthy(median.withHang))}/s vs ${fmt(healthy(median.base))}/s`,
      ratio,
      target: '≥ 0.95',
      status: judge(ratio >= 0.95 && pairs.every((p) => p.withHang.complete)),
      tool: 'bench (undici)',
      note: `pairs ${r.hangPairs.map((p) => hangRatio(p).toFixed(2)).join(', ')} in run order; ${fmt(median.withHang.hung)} requests left hanging (10 s timeout; ${r.worker.perSubscription} of ${r.worker.concurrency} slots per subscription, halved after each round of timeouts); every run from a vacuumed outbox`,
    });
  }
  const b = r.blip;
  addRow(ctx, {
    scenario: 4,
    what: `burst with a blip: ${fmt(b.latency.askedPerSecond)} events/s × ${r.subscriptions} subscriptions (${fmt(b.latency.achievedPerSecond)} recorded), one receiver answering 500 for 2 s`,
    value: `${fmt(b.latency.received)} of ${fmt(b.latency.expected)} delivered; p50 ${latencyMs(b.latency.p50)}, p99 ${latencyMs(b.latency.p99)}`,
    ratio: Number.isFinite(b.latency.p99) ? b.latency.p99 : null,
    unit: 'ms',
    target: 'not disabled, all delivered',
    bySize: "the burst's backlog grows with its length (4 s in a quick run, 10 s in a full one)",
    status: judge(b.is_active && b.latency.received >= b.latency.expected),
    tool: 'bench (undici)',
    note: `${fmt(b.blipped)} answers 500 during the blip; subscription ${b.is_active ? 'active' : 'disabled'}, streak ${b.consecutive_failures}; the failed deliveries are retried 10 s (±20 %) later, which is the p99`,
  });
}

/**
 * What one durable delivery costs the machine against one signed POST of the floor, by process: whether the drain
 * is bound by the cores or by waiting. The ratio is the durable ratio's ceiling on this machine: every core busy at
 * the drain's measured cost per delivery, ÷ the floor's rate.
 */
function cpuRow(
  ctx: Ctx,
  cpu: { floor: CpuSpend; drain: CpuSpend },
  n: { floor: number; drain: number },
  perDelivery: number,
  floorRate: number,
) {
  const d = cpu.drain;
  const f = cpu.floor;
  const ceiling = d.cores / perDelivery / floorRate;
  addRow(ctx, {
    scenario: 4,
    what: 'CPU per durable delivery in the drain against per signed POST in the floor; the durable ratio at every core busy',
    value: `drain ${describeSpend(d, n.drain, { postgres: true })}; floor ${describeSpend(f, n.floor, { postgres: false })}`,
    ratio: ceiling,
    target: 'report',
    status: 'info',
    tool: 'bench (/proc)',
    note: "the bench process holds the worker (and PGlite's thread on PGlite); machine time counts every process",
  });
}
