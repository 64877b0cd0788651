import { html, type SafeHtml } from '../html.ts';
import { axisTicks } from './chart-axis.ts';

/** One series of a chart: a name for the legend and the table, a CSS tone, and a value per bucket (null: none). */
export type ChartSeries = {
  name: string;
  tone: 'primary' | 'bad' | 'ok' | 'muted';
  values: (number | null)[];
};

export type Chart = {
  id: string;
  title: string;
  /** One sentence saying what the chart shows, for screen readers (`<desc>`) and as its caption. */
  description: string;
  /** A label per bucket, oldest first (the x axis and the table's rows). */
  labels: string[];
  series: ChartSeries[];
  /** How a value reads: `12`, `98%`, `140 ms`. */
  format: (v: number) => string;
  /** How an axis tick reads, when shorter than `format` (`2.5 s` for 2500 ms); `format` when absent. */
  tickFormat?: (v: number) => string;
  /** The top of the y axis; the largest value when absent. */
  max?: number;
  /** Series on top of one another (parts of one whole), not side by side. */
  stacked?: boolean;
};

const W = 640;
const H = 240;
/** Room for the axis labels at their largest (on the narrowest charts, where the SVG is scaled down most). */
const PAD = { top: 18, right: 8, bottom: 42, left: 96 };
/** At most this many x labels; on a narrow chart the CSS shows every other one (`chart-x-minor`). */
const X_LABELS = 8;

const round = (n: number) => Math.round(n * 10) / 10;

/** The tallest bar: the largest value, or the largest sum of a bucket when stacked. */
function largest(c: Chart): number {
  const at = (i: number) => c.series.map((s) => s.values[i] ?? 0);
  const tops = c.labels.map((_, i) => (c.stacked ? at(i).reduce((a, b) => a + b, 0) : Math.max(0, ...at(i))));
  return Math.max(0, ...tops);
}

/**
 * A bar chart as server-rendered SVG (no script, nothing fetched), with a `<title>` and `<desc>`, a legend,
 * and the same numbers as a table underneath: a chart is read at a glance, the table exactly. Series stand
 * side by side, or on top of one another when `stacked` (parts of a whole). The axis labels' size follows
 * the chart's rendered width (CSS container queries), so they stay readable where the SVG is scaled down.
 */
export function barChart(c: Chart): SafeHtml {
  const ticks = axisTicks(c.max ?? largest(c));
  const top = ticks[ticks.length - 1] ?? 1;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, c.labels.length);
  const barW = Math.max(1, (slot * 0.8) / (c.stacked ? 1 : c.series.length));
  const y = (v: number) => PAD.top + plotH - (Math.min(v, top) / top) * plotH;
  const every = Math.ceil(c.labels.length / X_LABELS);
  const titleId = `${c.id}-title`;
  const descId = `${c.id}-desc`;
  return html`<figure class="chart" id="${c.id}">
<svg class="chart-svg" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${titleId} ${descId}" xmlns="http://www.w3.org/2000/svg">
<title id="${titleId}">${c.title}</title>
<desc id="${descId}">${c.description}</desc>
${ticks.map(
  (t) =>
    html`<line class="chart-grid" x1="${PAD.left}" x2="${W - PAD.right}" y1="${round(y(t))}" y2="${round(y(t))}"></line><text class="chart-axis chart-y" x="${PAD.left - 6}" y="${round(y(t))}" dominant-baseline="middle" text-anchor="end">${(c.tickFormat ?? c.format)(t)}</text>`,
)}
${c.labels.map((label, i) => {
  const x0 = PAD.left + i * slot + slot * 0.1;
  let base = 0;
  const bars = c.series.map((s, k) => {
    const v = s.values[i];
    if (v === null || v === undefined || v <= 0) return '';
    const from = c.stacked ? base : 0;
    base += c.stacked ? v : 0;
    const h = Math.max(1, y(from) - y(from + v));
    const x = c.stacked ? x0 : x0 + k * barW;
    return html`<rect class="chart-bar tone-${s.tone}" x="${round(x)}" y="${round(y(from) - h)}" width="${round(barW)}" height="${round(h)}"><title>${label}: ${s.name} ${c.format(v)}</title></rect>`;
  });
  const labelled = i % every === 0;
  const minor = i % (2 * every) !== 0;
  return html`<g>${bars}${labelled ? html`<text class="chart-axis chart-x${minor ? ' chart-x-minor' : ''}" x="${round(x0 + (barW * (c.stacked ? 1 : c.series.length)) / 2)}" y="${H - 12}" text-anchor="middle">${label}</text>` : ''}</g>`;
})}
</svg>
<figcaption><strong>${c.title}.</strong> ${c.description}
<ul class="legend">${c.series.map((s) => html`<li><span class="swatch tone-${s.tone}" aria-hidden="true"></span>${s.name}</li>`)}</ul>
</figcaption>
<details class="chart-data">
<summary>Show the numbers</summary>
<div class="table-wrap"><table class="compact">
<thead><tr><th scope="col">${c.labels.length > 0 ? 'When (UTC)' : ''}</th>${c.series.map((s) => html`<th scope="col" class="num">${s.name}</th>`)}</tr></thead>
<tbody>${c.labels.map(
    (label, i) =>
      html`<tr><th scope="row">${label}</th>${c.series.map((s) => {
        const v = s.values[i];
        return html`<td class="num">${v === null || v === undefined ? '—' : c.format(v)}</td>`;
      })}</tr>`,
  )}</tbody>
</table></div>
</details>
</figure>`;
}
