import { html, type SafeHtml } from '../html.ts';
import { barChart } from './svg-chart.ts';

type Bucket = { bucket: string; attempts: number; ok: number; p50: number; p95: number };
export type DeliveryStats = { hourStart: Date; dayStart: Date; hours: Bucket[]; days: Bucket[] };

/** `count` buckets ending with the one starting at `last`, each `stepMs` long, as the query labels them. */
function bucketKeys(last: Date, count: number, stepMs: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    new Date(last.getTime() - (count - 1 - i) * stepMs).toISOString().slice(0, 14).concat('00'),
  );
}

const percent = (v: number) => `${Math.round(v)}%`;
const ms = (v: number) => (v >= 10_000 ? `${Math.round(v / 1000)} s` : `${Math.round(v)} ms`);
/** Axis ticks are round numbers: whole seconds and halves read shorter as seconds. */
const msTick = (v: number) => (v >= 1000 ? `${v / 1000} s` : `${v} ms`);

/** A part of a bucket's attempts in percent; null where nothing was sent (no bar, unlike a 0% share). */
const share = (b: Bucket | undefined, part: number | undefined) =>
  b && b.attempts > 0 && part !== undefined ? (part / b.attempts) * 100 : null;

function pair(id: string, span: string, keys: string[], label: (k: string) => string, rows: Bucket[]) {
  const byKey = new Map(rows.map((r) => [r.bucket, r]));
  const at = keys.map((k) => byKey.get(k));
  const labels = keys.map(label);
  const total = rows.reduce((n, r) => n + r.attempts, 0);
  const ok = rows.reduce((n, r) => n + r.ok, 0);
  const summary =
    total === 0
      ? `No delivery attempts in the last ${span}.`
      : `${ok} of ${total} attempts in the last ${span} got a 2xx answer (${percent((ok / total) * 100)}).`;
  return html`<div class="chart-pair">
<h3>Last ${span}</h3>
<p class="small muted">${summary}</p>
${barChart({
  id: `${id}-success`,
  title: `Delivery success rate, last ${span}`,
  description:
    'Share of delivery attempts that got a 2xx answer and share that failed, per period: a full bar wherever something was sent, none where nothing was.',
  labels,
  series: [
    { name: 'Success', tone: 'ok', values: at.map((b) => share(b, b?.ok)) },
    { name: 'Failed', tone: 'bad', values: at.map((b) => share(b, b && b.attempts - b.ok)) },
  ],
  format: percent,
  max: 100,
  stacked: true,
})}
${barChart({
  id: `${id}-latency`,
  title: `Delivery latency, last ${span}`,
  description: 'Median and 95th-percentile time to the receiver’s answer (or to the failure), per period.',
  labels,
  series: [
    { name: 'Median', tone: 'primary', values: at.map((b) => b?.p50 ?? null) },
    { name: '95th percentile', tone: 'muted', values: at.map((b) => b?.p95 ?? null) },
  ],
  format: ms,
  tickFormat: msTick,
})}
</div>`;
}

/** An endpoint's success-rate and latency charts over 24 hours (per hour) and 7 days (per day), UTC. */
export function deliveryCharts(s: DeliveryStats): SafeHtml {
  const hourKeys = bucketKeys(s.hourStart, 24, 3_600_000);
  const dayKeys = bucketKeys(s.dayStart, 7, 86_400_000);
  return html`<section class="card" aria-labelledby="charts-title">
<h2 id="charts-title">Delivery health</h2>
<p class="small muted">Times are UTC. Test events count too.</p>
<div class="chart-grid-2">
${pair('chart-24h', '24 hours', hourKeys, (k) => `${k.slice(11, 13)}h`, s.hours)}
${pair('chart-7d', '7 days', dayKeys, (k) => k.slice(5, 10), s.days)}
</div>
</section>`;
}
