import { html, type SafeHtml } from '../html.ts';

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
  /** The top of the y axis; the largest value when absent. */
  max?: number;
};

const W = 640;
const H = 200;
const PAD = { top: 12, right: 8, bottom: 26, left: 44 };
const TICKS = 4;

const round = (n: number) => Math.round(n * 10) / 10;

/** The y axis top: the given max, else the largest value rounded up to a readable step. */
function axisTop(c: Chart): number {
  if (c.max !== undefined) return c.max;
  const largest = Math.max(0, ...c.series.flatMap((s) => s.values.map((v) => v ?? 0)));
  if (largest === 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(largest));
  const step = [1, 2, 5, 10].find((m) => m * magnitude * TICKS >= largest) ?? 10;
  return step * magnitude * TICKS;
}

/**
 * A grouped bar chart as server-rendered SVG (no script, nothing fetched), with a `<title>` and `<desc>`, a
 * legend, and the same numbers as a table underneath: a chart is read at a glance, the table exactly.
 */
export function barChart(c: Chart): SafeHtml {
  const top = axisTop(c);
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, c.labels.length);
  const barW = Math.max(1, (slot * 0.8) / c.series.length);
  const y = (v: number) => PAD.top + plotH - (Math.min(v, top) / top) * plotH;
  const every = Math.ceil(c.labels.length / 8);
  const ticks = Array.from({ length: TICKS + 1 }, (_, i) => (top / TICKS) * i);
  const titleId = `${c.id}-title`;
  const descId = `${c.id}-desc`;
  return html`<figure class="chart" id="${c.id}">
<svg class="chart-svg" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${titleId} ${descId}" xmlns="http://www.w3.org/2000/svg">
<title id="${titleId}">${c.title}</title>
<desc id="${descId}">${c.description}</desc>
${ticks.map(
  (t) =>
    html`<line class="chart-grid" x1="${PAD.left}" x2="${W - PAD.right}" y1="${round(y(t))}" y2="${round(y(t))}"></line><text class="chart-axis" x="${PAD.left - 4}" y="${round(y(t) + 4)}" text-anchor="end">${c.format(t)}</text>`,
)}
${c.labels.map((label, i) => {
  const x0 = PAD.left + i * slot + slot * 0.1;
  return html`<g>${c.series.map((s, k) => {
    const v = s.values[i];
    if (v === null || v === undefined) return '';
    const h = Math.max(v > 0 ? 1 : 0, PAD.top + plotH - y(v));
    return html`<rect class="chart-bar tone-${s.tone}" x="${round(x0 + k * barW)}" y="${round(PAD.top + plotH - h)}" width="${round(barW)}" height="${round(h)}"><title>${label}: ${s.name} ${c.format(v)}</title></rect>`;
  })}${i % every === 0 ? html`<text class="chart-axis" x="${round(x0 + (barW * c.series.length) / 2)}" y="${H - 8}" text-anchor="middle">${label}</text>` : ''}</g>`;
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
