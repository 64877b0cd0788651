import type { AssistantView } from '../../assistants/index.ts';
import type { CallDetailView, CallView } from '../../calls/index.ts';
import { CALL_STATUSES } from '../../calls/index.ts';
import type { FetchResult } from '../../transcripts/index.ts';
import { attr, html, type SafeHtml } from '../html.ts';
import { badge, callStatusLabel, duration, time, toLocalInput, usd } from './format.ts';
import { crumbs, issuesBlock, type PageUser, page } from './layout.ts';

/** The query parameters of GET /calls the page's form sends and its page links keep. */
export const CALL_FILTER_FIELDS = [
  'direction',
  'status',
  'assistant_id',
  'from',
  'to',
  'from_number',
  'to_number',
  'external_id',
  'metadata',
  'disconnect_reason',
  'duration_min',
  'duration_max',
  'cost_min',
  'cost_max',
  'has_transcript',
  'updated_since',
  'limit',
] as const;

/** Each filter as sent (absent: not given); `status` is one status or several, comma-separated, as GET /calls takes it. */
export type CallFilters = { [K in (typeof CALL_FILTER_FIELDS)[number]]?: string } & { page: number };

const directionBadge = (d: string): SafeHtml =>
  badge(d === 'inbound' ? 'Inbound' : 'Outbound', d === 'inbound' ? 'info' : 'muted');

const UNSUCCESSFUL = ['no_answer', 'busy', 'failed', 'canceled'];

function statusBadge(status: string): SafeHtml {
  const label = callStatusLabel(status);
  if (status === 'completed') return badge(label, 'ok');
  if (UNSUCCESSFUL.includes(status)) return badge(label, 'warn');
  return badge(label, 'muted');
}

/** The status choices: each status, and the unsuccessful ones together (GET /calls takes several). */
const STATUS_CHOICES: [value: string, label: string][] = [
  ...CALL_STATUSES.map((s): [string, string] => [s, callStatusLabel(s)]),
  [UNSUCCESSFUL.join(','), 'Not answered (no answer, busy, failed, canceled)'],
];

/** The current filters as a query string (page replaced), for pagination links. */
export function filterQuery(f: CallFilters, pageNumber: number): string {
  const q = new URLSearchParams();
  for (const k of CALL_FILTER_FIELDS) {
    const value = f[k];
    if (value) q.set(k, value);
  }
  if (pageNumber > 0) q.set('page', String(pageNumber));
  const s = q.toString();
  return s ? `?${s}` : '';
}

export function callsListPage(p: {
  user: PageUser;
  filters: CallFilters;
  assistants: AssistantView[];
  calls: CallView[];
  hasMore: boolean;
  issues: { field?: string; message: string }[];
}): SafeHtml {
  const f = p.filters;
  const v = (k: (typeof CALL_FILTER_FIELDS)[number]): string => f[k] ?? '';
  const rows = p.calls.map(
    (c) => html`<tr>
  <th scope="row"><a href="/dashboard/calls/${c.id}">${time(c.started_at)}</a></th>
  <td data-label="Direction">${directionBadge(c.direction)}</td>
  <td data-label="Status">${statusBadge(c.status)}</td>
  <td data-label="Assistant">${c.assistant_name}</td>
  <td class="mono" data-label="From">${c.from_number}</td>
  <td class="mono" data-label="To">${c.to_number}</td>
  <td class="num" data-label="Duration">${duration(c.duration_seconds)}</td>
  <td data-label="Transcript">${c.has_transcript ? 'Yes' : html`<span class="muted">No</span>`}</td>
</tr>`,
  );
  return page({
    title: 'Calls',
    nav: 'calls',
    user: p.user,
    body: html`<h1>Calls</h1>
<form method="get" action="/dashboard/calls" class="filters card" aria-label="Filter calls">
  <div class="field">
    <label for="direction">Direction</label>
    <select id="direction" name="direction">
      <option value="">Both</option>
      <option value="inbound"${attr('selected', v('direction') === 'inbound')}>Inbound</option>
      <option value="outbound"${attr('selected', v('direction') === 'outbound')}>Outbound</option>
    </select>
  </div>
  <div class="field">
    <label for="status">Status</label>
    <select id="status" name="status">
      <option value="">Any</option>
      ${STATUS_CHOICES.map(([value, label]) => html`<option value="${value}"${attr('selected', v('status') === value)}>${label}</option>`)}
      ${v('status') && !STATUS_CHOICES.some(([value]) => value === v('status')) ? html`<option value="${v('status')}" selected>${v('status')}</option>` : ''}
    </select>
  </div>
  <div class="field">
    <label for="assistant_id">Assistant</label>
    <select id="assistant_id" name="assistant_id">
      <option value="">All</option>
      ${p.assistants.map((a) => html`<option value="${a.id}"${attr('selected', v('assistant_id') === a.id)}>${a.name}</option>`)}
    </select>
  </div>
  <div class="field">
    <label for="from">From <span class="muted">(UTC)</span></label>
    <input id="from" name="from" type="datetime-local" value="${toLocalInput(v('from')) || v('from')}" aria-describedby="utc-hint">
  </div>
  <div class="field">
    <label for="to">To <span class="muted">(UTC)</span></label>
    <input id="to" name="to" type="datetime-local" value="${toLocalInput(v('to')) || v('to')}" aria-describedby="utc-hint">
  </div>
  <div class="field">
    <label for="from_number">From number</label>
    <input id="from_number" name="from_number" type="tel" value="${v('from_number')}" placeholder="+14155550123" autocomplete="off">
  </div>
  <div class="field">
    <label for="to_number">To number</label>
    <input id="to_number" name="to_number" type="tel" value="${v('to_number')}" placeholder="+14155550123" autocomplete="off">
  </div>
  <div class="field">
    <label for="external_id">External ID</label>
    <input id="external_id" name="external_id" value="${v('external_id')}" autocomplete="off">
  </div>
  <div class="field">
    <label for="metadata">Metadata</label>
    <input id="metadata" name="metadata" value="${v('metadata')}" placeholder="plan:gold,region:eu" autocomplete="off" aria-describedby="metadata-hint">
  </div>
  <div class="field">
    <label for="disconnect_reason">Disconnect reason</label>
    <input id="disconnect_reason" name="disconnect_reason" value="${v('disconnect_reason')}" placeholder="caller_hangup" autocomplete="off">
  </div>
  <div class="field">
    <label for="duration_min">Duration at least <span class="muted">(s)</span></label>
    <input id="duration_min" name="duration_min" type="number" min="0" step="1" value="${v('duration_min')}">
  </div>
  <div class="field">
    <label for="duration_max">Duration at most <span class="muted">(s)</span></label>
    <input id="duration_max" name="duration_max" type="number" min="0" step="1" value="${v('duration_max')}">
  </div>
  <div class="field">
    <label for="cost_min">Cost at least <span class="muted">(USD)</span></label>
    <input id="cost_min" name="cost_min" inputmode="decimal" value="${v('cost_min')}" placeholder="0.00" autocomplete="off">
  </div>
  <div class="field">
    <label for="cost_max">Cost at most <span class="muted">(USD)</span></label>
    <input id="cost_max" name="cost_max" inputmode="decimal" value="${v('cost_max')}" placeholder="0.00" autocomplete="off">
  </div>
  <div class="field">
    <label for="has_transcript">Transcript</label>
    <select id="has_transcript" name="has_transcript">
      <option value="">Any</option>
      <option value="true"${attr('selected', v('has_transcript') === 'true')}>With a transcript</option>
      <option value="false"${attr('selected', v('has_transcript') === 'false')}>Without</option>
      ${v('has_transcript') && !['true', 'false'].includes(v('has_transcript')) ? html`<option value="${v('has_transcript')}" selected>${v('has_transcript')}</option>` : ''}
    </select>
  </div>
  <div class="field">
    <label for="updated_since">Changed since <span class="muted">(UTC)</span></label>
    <input id="updated_since" name="updated_since" type="datetime-local" value="${toLocalInput(v('updated_since')) || v('updated_since')}" aria-describedby="utc-hint">
  </div>
  <div class="field">
    <label for="limit">Per page</label>
    <select id="limit" name="limit">
      ${['10', '25', '50', '100'].map((n) => html`<option${attr('selected', (v('limit') || '25') === n)}>${n}</option>`)}
    </select>
  </div>
  <div class="actions"><button class="button primary" type="submit">Apply</button> <a class="button" href="/dashboard/calls">Reset</a></div>
  <p class="hint small muted" id="utc-hint">Dates and times are UTC (Coordinated Universal Time), whatever your computer's time zone, as in the list below.</p>
  <p class="hint small muted" id="metadata-hint">Metadata: <code>key:value</code>, several joined by commas (all must match); write <code>\,</code> for a comma in a value.</p>
</form>
${issuesBlock(p.issues)}
${
  p.calls.length > 0
    ? html`<p class="actions"><a class="button" id="download-csv" href="/dashboard/calls/export${filterQuery(f, 0)}" download>Download CSV</a> <span class="muted small">every call matching these filters, not only this page</span></p>`
    : ''
}
${
  p.calls.length === 0
    ? html`<p class="empty">No calls match these filters.</p>`
    : html`<div class="table-wrap"><table class="cards">
  <caption class="visually-hidden">Calls, newest first</caption>
  <thead><tr><th scope="col">Started</th><th scope="col">Direction</th><th scope="col">Status</th><th scope="col">Assistant</th><th scope="col">From</th><th scope="col">To</th><th scope="col" class="num">Duration</th><th scope="col">Transcript</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`
}
<nav class="pager" aria-label="Pages">
  ${f.page > 0 ? html`<a class="button" rel="prev" href="/dashboard/calls${filterQuery(f, f.page - 1)}">← Newer</a>` : ''}
  <span class="muted">Page ${f.page + 1}</span>
  ${p.hasMore ? html`<a class="button" rel="next" href="/dashboard/calls${filterQuery(f, f.page + 1)}">Older →</a>` : ''}
</nav>`,
  });
}

function transcriptBlock(t: FetchResult): SafeHtml {
  if (t.state === 'stored') {
    return html`<ol class="transcript">${t.transcript.rest.segments.map(
      (s) =>
        html`<li class="turn turn-${s.speaker}"><span class="speaker">${s.speaker === 'caller' ? 'Caller' : 'Assistant'}</span> <span class="small muted">${time(s.timestamp)}</span><p>${s.text}</p></li>`,
    )}</ol>`;
  }
  // The script reloads the page after the wait; without it the message still says what to do.
  if (t.state === 'pending')
    return html`<p class="muted" data-reload-after="${Math.min(60, Math.max(2, t.retryAfterSeconds))}" role="status">The transcript is not ready yet; reload in about ${t.retryAfterSeconds} seconds.</p>`;
  if (t.state === 'unavailable')
    return html`<p class="muted">The transcript could not be fetched right now; try again shortly.</p>`;
  return html`<p class="muted">No transcript exists for this call.</p>`;
}

function insightValue(v: unknown): SafeHtml {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return html`${String(v)}`;
  return html`<code class="json">${JSON.stringify(v)}</code>`;
}

export function callDetailPage(p: {
  user: PageUser;
  call: CallDetailView;
  transcript: FetchResult;
  insights: { name: string; result: unknown }[];
}): SafeHtml {
  const c = p.call;
  return page({
    title: 'Call',
    nav: 'calls',
    user: p.user,
    body: html`${crumbs([{ label: 'Calls', href: '/dashboard/calls' }], 'Call')}
<div class="page-head"><h1>Call ${time(c.started_at)}</h1> ${directionBadge(c.direction)} ${statusBadge(c.status)}</div>
<dl class="facts">
  <div><dt>ID</dt><dd><code>${c.id}</code></dd></div>
  <div><dt>Assistant</dt><dd>${c.assistant_name}</dd></div>
  <div><dt>From</dt><dd class="mono">${c.from_number}${c.caller_name ? html` <span class="muted">(${c.caller_name})</span>` : ''}</dd></div>
  <div><dt>To</dt><dd class="mono">${c.to_number}</dd></div>
  <div><dt>Answered</dt><dd>${time(c.answered_at)}</dd></div>
  <div><dt>Ended</dt><dd>${time(c.ended_at)}</dd></div>
  <div><dt>Duration</dt><dd>${duration(c.duration_seconds)}</dd></div>
  <div><dt>Billable</dt><dd>${duration(c.billable_seconds)}</dd></div>
  <div><dt>Cost</dt><dd>${c.cost === null ? '—' : usd(c.cost)}</dd></div>
  <div><dt>Disconnect reason</dt><dd>${c.disconnect_reason ?? '—'}</dd></div>
  <div><dt>Conversation</dt><dd><code>${c.conversation_id ?? '—'}</code></dd></div>
  ${c.external_id ? html`<div><dt>External ID</dt><dd><code>${c.external_id}</code></dd></div>` : ''}
</dl>
${c.summary ? html`<section class="card"><h2>Summary</h2><p>${c.summary}</p></section>` : ''}
<section class="card" aria-labelledby="insights-title">
  <h2 id="insights-title">Insights</h2>
  ${
    p.insights.length === 0
      ? html`<p class="muted">No insights for this call.</p>`
      : html`<dl class="facts">${p.insights.map((i) => html`<div><dt>${i.name}</dt><dd>${insightValue(i.result)}</dd></div>`)}</dl>`
  }
</section>
<section class="card" aria-labelledby="transcript-title">
  <h2 id="transcript-title">Transcript</h2>
  ${transcriptBlock(p.transcript)}
</section>`,
  });
}

/** An assistant's ElevenLabs agent and the agent phone number id of each of its numbers (PROVIDER=elevenlabs). */
export type AgentLinks = Map<
  string,
  { agentId: string; phoneNumbers: Record<string, { id: string; telephony: string }> }
>;

function agentCell(
  link: { agentId: string; phoneNumbers: Record<string, { id: string; telephony: string }> } | undefined,
) {
  if (!link) return html`<span class="muted">not linked</span>`;
  return html`${link.agentId}${Object.entries(link.phoneNumbers).map(
    ([e164, n]) => html`<div class="small muted">${e164} → ${n.id} (${n.telephony})</div>`,
  )}`;
}

export function assistantsPage(p: {
  user: PageUser;
  assistants: AssistantView[];
  total: number;
  agents: AgentLinks;
}): SafeHtml {
  return page({
    title: 'Assistants',
    nav: 'assistants',
    user: p.user,
    body: html`<h1>Assistants</h1>
${
  p.assistants.length === 0
    ? html`<p class="empty">No assistants yet.</p>`
    : html`<div class="table-wrap"><table class="cards">
  <caption class="visually-hidden">Your assistants (${p.total})</caption>
  <thead><tr><th scope="col">Name</th><th scope="col">Language</th><th scope="col">Voice</th><th scope="col">Phone numbers</th><th scope="col">ElevenLabs agent</th><th scope="col">State</th><th scope="col">Activity</th></tr></thead>
  <tbody>${p.assistants.map(
    (a) => html`<tr>
  <th scope="row">${a.name}${a.description ? html`<div class="small muted">${a.description}</div>` : ''}</th>
  <td data-label="Language">${a.language}</td>
  <td data-label="Voice">${a.voice_id}</td>
  <td class="mono" data-label="Numbers">${a.phone_numbers.join(', ') || html`<span class="muted">none</span>`}</td>
  <td class="mono" data-label="ElevenLabs agent">${agentCell(p.agents.get(a.id))}</td>
  <td data-label="State">${a.is_active ? badge('Active', 'ok') : badge('Inactive', 'muted')}</td>
  <td data-label=""><a href="/dashboard/calls?assistant_id=${a.id}">View calls<span class="visually-hidden"> of ${a.name}</span></a><br><a href="/dashboard/messages?assistant_id=${a.id}">View messages<span class="visually-hidden"> of ${a.name}</span></a></td>
</tr>`,
  )}</tbody>
</table></div>`
}`,
  });
}
