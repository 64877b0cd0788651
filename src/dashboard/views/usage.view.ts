import type { KeyView } from '../../keys/index.ts';
import { attr, html, type SafeHtml } from '../html.ts';
import type { UsageReport } from '../usage-report.ts';
import { addMoney, subtractMoney } from '../usage-report.ts';
import { usd } from './format.ts';
import { statusBadge } from './keys.view.ts';
import { type PageUser, page } from './layout.ts';
import { barChart } from './svg-chart.ts';

const COUNTRY_NAMES = new Intl.DisplayNames(['en'], { type: 'region' });
const countryName = (code: string): string => {
  try {
    return code.length === 2 ? (COUNTRY_NAMES.of(code) ?? code) : code;
  } catch {
    return code;
  }
};

/**
 * A wide table in a box that scrolls sideways: focusable (keyboard scrolling), named by its heading, and on a
 * phone announced by a visible hint and a fading edge (CSS), since a phone shows no scroll bar until touched.
 */
const scrollingTable = (labelledBy: string, table: SafeHtml): SafeHtml =>
  html`<p class="scroll-hint small muted" aria-hidden="true">Swipe the table sideways to see every column →</p>
<div class="table-wrap scrolls" tabindex="0" role="region" aria-labelledby="${labelledBy}">${table}</div>`;

export function usagePage(p: {
  user: PageUser;
  keys: KeyView[];
  report: UsageReport;
  days: number;
}): SafeHtml {
  const { report } = p;
  const today = report.days[0] ?? '';
  const reqs = new Map(report.requests.map((r) => [`${r.keyId}|${r.day}`, r]));
  const spend = new Map(report.spend.map((s) => [`${s.keyId}|${s.day}`, s.amountUsd]));
  const keysShown = p.keys.filter(
    (k) =>
      k.status === 'active' ||
      report.requests.some((r) => r.keyId === k.id) ||
      report.spend.some((s) => s.keyId === k.id),
  );
  const requestRows = keysShown.map((k) => {
    const cells = report.days.map((d) => reqs.get(`${k.id}|${d}`));
    const total = cells.reduce((n, c) => n + (c?.requests ?? 0), 0);
    const errors = cells.reduce((n, c) => n + (c?.errors ?? 0), 0);
    return html`<tr>
  <th scope="row"><a href="/dashboard/keys/${k.id}">${k.name}</a> <code class="small">${k.prefix}…</code></th>
  ${cells.map((c) => html`<td class="num">${c ? c.requests : html`<span class="muted">0</span>`}</td>`)}
  <td class="num"><strong>${total}</strong>${errors > 0 ? html`<div class="small muted">${errors} error${errors === 1 ? '' : 's'}</div>` : ''}</td>
</tr>`;
  });
  const oldestFirst = [...report.days].reverse();
  const requestCharts = keysShown.map((k) => {
    const cells = oldestFirst.map((d) => reqs.get(`${k.id}|${d}`));
    return barChart({
      id: `usage-${k.id}`,
      title: `${k.name} (${k.prefix}…): requests per day`,
      description: `API requests made with this key per UTC day over the last ${p.days} days, and beside each day the answers that were errors (4xx or 5xx).`,
      labels: oldestFirst.map((d) => d.slice(5)),
      series: [
        { name: 'Requests', tone: 'primary', values: cells.map((c) => c?.requests ?? 0) },
        { name: 'Errors (4xx/5xx)', tone: 'bad', values: cells.map((c) => c?.errors ?? 0) },
      ],
      format: (v) => String(Math.round(v)),
    });
  });
  const spendRows = keysShown.map((k) => {
    const todaySpend = spend.get(`${k.id}|${today}`) ?? '0';
    const periodSpend = report.days.reduce((sum, d) => addMoney(sum, spend.get(`${k.id}|${d}`) ?? '0'), '0');
    const cap = Number(k.effective_daily_spend_cap_usd);
    const used = Number(todaySpend);
    const pct = cap > 0 ? Math.round((used / cap) * 100) : used > 0 ? 100 : 0;
    return html`<tr>
  <th scope="row"><a href="/dashboard/keys/${k.id}">${k.name}</a> ${statusBadge(k)}</th>
  <td class="num">${usd(todaySpend)}</td>
  <td class="num">${usd(k.effective_daily_spend_cap_usd)}</td>
  <td><meter min="0" max="${cap > 0 ? cap : 1}" low="${cap * 0.7}" high="${cap * 0.9}" optimum="0" value="${Math.min(used, cap > 0 ? cap : 1)}" aria-label="${k.name}: ${pct}% of today's cap">${pct}%</meter> <span class="small">${pct}%</span></td>
  <td class="num">${usd(periodSpend)}</td>
</tr>`;
  });
  const countryRows = report.countries.map(
    (c) => html`<tr>
  <th scope="row">${countryName(c.country)} <span class="muted small">${c.country}</span></th>
  <td class="num">${c.calls}</td>
  <td class="num">${c.keyCalls}</td>
  <td class="num">${usd(addMoney(c.keySpendUsd, c.otherCostUsd))}</td>
</tr>`,
  );
  const sum = (values: string[]) => values.reduce(addMoney, '0');
  const keySpendTotal = sum(report.spend.map((s) => s.amountUsd));
  const messageSpend = subtractMoney(keySpendTotal, report.callSpendUsd);
  const countryKeySpend = sum(report.countries.map((c) => c.keySpendUsd));
  const otherCost = sum(report.countries.map((c) => c.otherCostUsd));
  const unkeyed = report.countries.reduce((n, c) => n + c.calls - c.keyCalls, 0);
  return page({
    title: 'Usage',
    nav: 'usage',
    user: p.user,
    body: html`<div class="page-head">
  <h1>Usage</h1>
  <form method="get" action="/dashboard/usage" class="inline-form">
    <label for="days">Period</label>
    <select id="days" name="days">
      ${[7, 14, 30].map((n) => html`<option value="${n}"${attr('selected', p.days === n)}>Last ${n} days</option>`)}
    </select>
    <button class="button" type="submit">Show</button>
  </form>
</div>
<p class="muted">Days are UTC; today is ${today}. Request counts include every answer, errors too, and may lag a few seconds.</p>
<section aria-labelledby="req-title">
  <h2 id="req-title">API requests per key per day</h2>
  ${keysShown.length === 0 ? '' : html`<div class="chart-grid-2">${requestCharts}</div>`}
  ${
    keysShown.length === 0
      ? html`<p class="empty">No keys.</p>`
      : scrollingTable(
          'req-title',
          html`<table class="compact">
  <thead><tr><th scope="col">Key</th>${report.days.map((d) => html`<th scope="col" class="num">${d.slice(5)}</th>`)}<th scope="col" class="num">Total</th></tr></thead>
  <tbody>${requestRows}</tbody>
</table>`,
        )
  }
</section>
<section aria-labelledby="spend-title">
  <h2 id="spend-title">Outbound spend per key: calls and text messages</h2>
  <p class="muted small" id="spend-note">What each key spent on the calls it placed and the text messages it sent, against its daily cap, which holds both. Over these days: calls <span id="spend-calls-total">${usd(report.callSpendUsd)}</span>, text messages <span id="spend-messages-total">${usd(messageSpend)}</span>.</p>
  ${
    keysShown.length === 0
      ? html`<p class="empty">No keys.</p>`
      : scrollingTable(
          'spend-title',
          html`<table>
  <thead><tr><th scope="col">Key</th><th scope="col" class="num">Today</th><th scope="col" class="num">Daily cap</th><th scope="col">Of cap</th><th scope="col" class="num">Last ${p.days} days</th></tr></thead>
  <tbody>${spendRows}</tbody>
  <tfoot><tr><th scope="row">All keys</th><td colspan="3"></td><td class="num" id="spend-total">${usd(keySpendTotal)}</td></tr></tfoot>
</table>`,
        )
  }
</section>
<section aria-labelledby="country-title">
  <h2 id="country-title">Outbound calls by country (last ${p.days} days)</h2>
  ${
    report.countries.length === 0
      ? html`<p class="empty">No outbound calls in this period.</p>`
      : html`${scrollingTable(
          'country-title',
          html`<table>
  <thead><tr><th scope="col">Country</th><th scope="col" class="num">Calls</th><th scope="col" class="num">With an API key</th><th scope="col" class="num">Cost</th></tr></thead>
  <tbody>${countryRows}</tbody>
  <tfoot><tr><th scope="row">All countries</th><td class="num">${report.countries.reduce((n, c) => n + c.calls, 0)}</td><td class="num">${report.countries.reduce((n, c) => n + c.keyCalls, 0)}</td><td class="num" id="country-cost-total">${usd(addMoney(countryKeySpend, otherCost))}</td></tr></tfoot>
</table>`,
        )}
<p class="small muted" id="country-note">The cost of calls placed with an API key is their amount in the outbound ledger, the same source as the spend per key above, whose calls part it is: <span id="country-key-spend-total">${usd(countryKeySpend)}</span> over these days in both (an estimate while a call runs, its cost once it is settled). Text messages are not in this table.${
          unkeyed > 0
            ? html` The other ${usd(otherCost)} is the recorded cost of ${unkeyed} outbound call${unkeyed === 1 ? '' : 's'} placed without an API key (imported history), which count against no key's cap.`
            : ''
        }</p>`
  }
</section>`,
  });
}
