import type { AssistantView } from '../../assistants/index.ts';
import type { KeyView } from '../../keys/index.ts';
import type { MessageView } from '../../sms/index.ts';
import { attr, html, type SafeHtml } from '../html.ts';
import { badge, time } from './format.ts';
import { crumbs, issuesBlock, type PageUser, page } from './layout.ts';

type MessageStatus = MessageView['status'];

/** To the second, in UTC: a message's statuses follow each other within seconds. */
const exactTime = (iso: string): SafeHtml =>
  html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time>`;

/** A message with every status it reached (GET /sms/messages/{id}). */
export type MessageDetail = MessageView & {
  status_history: { status: MessageStatus; error_code: string | null; at: string }[];
};

/** The list's filters as the page's query carries them (each empty when not set). */
export type MessageFilters = {
  assistant_id: string;
  api_key_id: string;
  direction: string;
  status: string;
  limit: string;
  /** Where the page starts: a `next_cursor` of the list with these filters; empty for the newest. */
  cursor: string;
};

/** Every status, as people read it; typed by the API's own union, so a new status cannot be left out. */
const STATUS_LABELS: Record<MessageStatus, string> = {
  queued: 'Queued',
  sending: 'Sending',
  sent: 'Sent',
  delivered: 'Delivered',
  undelivered: 'Undelivered',
  failed: 'Failed',
  received: 'Received',
};
export const MESSAGE_STATUSES = Object.keys(STATUS_LABELS) as MessageStatus[];
const FINAL: readonly string[] = ['delivered', 'undelivered', 'failed', 'received'];
const statusLabel = (status: string): string => STATUS_LABELS[status as MessageStatus] ?? status;

function statusBadge(status: string): SafeHtml {
  const label = statusLabel(status);
  if (status === 'delivered') return badge(label, 'ok');
  if (status === 'undelivered' || status === 'failed') return badge(label, 'bad');
  if (status === 'received') return badge(label, 'info');
  return badge(label, 'muted');
}

const directionBadge = (d: string): SafeHtml =>
  badge(d === 'inbound' ? 'Inbound' : 'Outbound', d === 'inbound' ? 'info' : 'muted');

/** Cost to the 1/10,000 dollar, as the API gives it (a segment costs less than a cent); an estimate until final. */
const cost = (m: MessageView): SafeHtml =>
  html`$${m.cost}${FINAL.includes(m.status) ? '' : html` <span class="small muted">estimate</span>`}`;

/** The start of a body on one line: about 60 characters (whole characters, never half an emoji). */
export function bodyPreview(body: string, max = 60): string {
  const chars = Array.from(body.replace(/\s+/g, ' ').trim());
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : chars.join('');
}

const FILTER_KEYS = ['assistant_id', 'api_key_id', 'direction', 'status', 'limit'] as const;

/** The current filters as a query string, optionally from a cursor on, for the pager's links. */
export function messagesQuery(f: MessageFilters, cursor: string | null): string {
  const q = new URLSearchParams();
  for (const k of FILTER_KEYS) if (f[k]) q.set(k, f[k]);
  if (cursor) q.set('cursor', cursor);
  const s = q.toString();
  return s ? `?${s}` : '';
}

export function messagesListPage(p: {
  user: PageUser;
  filters: MessageFilters;
  assistants: AssistantView[];
  keys: KeyView[];
  messages: MessageView[];
  nextCursor: string | null;
  issues: { field?: string; message: string }[];
}): SafeHtml {
  const f = p.filters;
  const rows = p.messages.map(
    (m) => html`<tr>
  <th scope="row"><a href="/dashboard/messages/${m.id}">${time(m.created_at)}</a></th>
  <td data-label="Direction">${directionBadge(m.direction)}</td>
  <td class="mono" data-label="From → to">${m.from_number} <span aria-hidden="true">→</span><span class="visually-hidden"> to </span> ${m.to_number}</td>
  <td data-label="Status">${statusBadge(m.status)}</td>
  <td class="num" data-label="Segments">${m.segments}</td>
  <td class="num" data-label="Cost">${cost(m)}</td>
  <td data-label="Text">${bodyPreview(m.body)}</td>
</tr>`,
  );
  const filtered = FILTER_KEYS.some((k) => k !== 'limit' && f[k]);
  return page({
    title: 'Messages',
    nav: 'messages',
    user: p.user,
    body: html`<h1>Messages</h1>
<form method="get" action="/dashboard/messages" class="filters card" aria-label="Filter messages">
  <div class="field">
    <label for="assistant_id">Assistant</label>
    <select id="assistant_id" name="assistant_id">
      <option value="">All</option>
      ${p.assistants.map((a) => html`<option value="${a.id}"${attr('selected', f.assistant_id === a.id)}>${a.name}</option>`)}
    </select>
  </div>
  <div class="field">
    <label for="api_key_id">API key</label>
    <select id="api_key_id" name="api_key_id">
      <option value="">All</option>
      ${p.keys.map((k) => html`<option value="${k.id}"${attr('selected', f.api_key_id === k.id)}>${k.name} (${k.prefix}…)</option>`)}
    </select>
  </div>
  <div class="field">
    <label for="direction">Direction</label>
    <select id="direction" name="direction">
      <option value="">Both</option>
      <option value="outbound"${attr('selected', f.direction === 'outbound')}>Outbound (sent)</option>
      <option value="inbound"${attr('selected', f.direction === 'inbound')}>Inbound (received)</option>
    </select>
  </div>
  <div class="field">
    <label for="status">Status</label>
    <select id="status" name="status">
      <option value="">Any</option>
      ${MESSAGE_STATUSES.map((s) => html`<option value="${s}"${attr('selected', f.status === s)}>${STATUS_LABELS[s]}</option>`)}
    </select>
  </div>
  <div class="field">
    <label for="limit">Per page</label>
    <select id="limit" name="limit">
      ${['10', '25', '50', '100'].map((n) => html`<option${attr('selected', (f.limit || '25') === n)}>${n}</option>`)}
    </select>
  </div>
  <div class="actions"><button class="button primary" type="submit">Apply</button> <a class="button" href="/dashboard/messages">Reset</a></div>
  <p class="hint small muted">Times are UTC. Received messages were sent with no API key: filtering by key lists sent ones only.</p>
</form>
${issuesBlock(p.issues)}
${
  p.messages.length === 0
    ? html`<p class="empty">${filtered || f.cursor ? 'No messages match these filters.' : 'No messages yet.'}</p>`
    : html`<div class="table-wrap"><table class="cards">
  <caption class="visually-hidden">Text messages, newest first</caption>
  <thead><tr><th scope="col">Time</th><th scope="col">Direction</th><th scope="col">From → to</th><th scope="col">Status</th><th scope="col" class="num">Segments</th><th scope="col" class="num">Cost</th><th scope="col">Text</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`
}
${
  f.cursor || p.nextCursor
    ? html`<nav class="pager" aria-label="Pages">
  ${f.cursor ? html`<a class="button" href="/dashboard/messages${messagesQuery(f, null)}">← Newest</a>` : ''}
  ${p.nextCursor ? html`<a class="button" rel="next" href="/dashboard/messages${messagesQuery(f, p.nextCursor)}">Older →</a>` : ''}
</nav>`
    : ''
}`,
  });
}

export function messageDetailPage(p: {
  user: PageUser;
  message: MessageDetail;
  assistant: AssistantView | undefined;
}): SafeHtml {
  const m = p.message;
  const assistantLink = `/dashboard/messages?assistant_id=${encodeURIComponent(m.assistant_id)}`;
  return page({
    title: 'Message',
    nav: 'messages',
    user: p.user,
    body: html`${crumbs([{ label: 'Messages', href: '/dashboard/messages' }], 'Message')}
<div class="page-head"><h1>Message ${time(m.created_at)}</h1> ${directionBadge(m.direction)} ${statusBadge(m.status)}</div>
<dl class="facts">
  <div><dt>ID</dt><dd><code>${m.id}</code></dd></div>
  <div><dt>Mode</dt><dd>${m.livemode ? 'Live' : 'Test (simulated, free)'}</dd></div>
  <div><dt>Assistant</dt><dd>${p.assistant?.name ?? html`<code>${m.assistant_id}</code>`}<div class="small"><a href="${assistantLink}">All messages of this assistant</a></div></dd></div>
  <div><dt>From</dt><dd class="mono">${m.from_number}</dd></div>
  <div><dt>To</dt><dd class="mono">${m.to_number}</dd></div>
  <div><dt>Segments</dt><dd>${m.segments} <span class="muted">(${m.encoding})</span></dd></div>
  <div><dt>Cost</dt><dd>${cost(m)}</dd></div>
  <div><dt>Created</dt><dd>${exactTime(m.created_at)}</dd></div>
  <div><dt>Updated</dt><dd>${exactTime(m.updated_at)}</dd></div>
  <div><dt>External ID</dt><dd>${m.external_id === null ? html`<span class="muted">—</span>` : html`<code>${m.external_id}</code>`}</dd></div>
  ${
    m.error_code !== null || m.error_message !== null
      ? html`<div><dt>Error</dt><dd>${m.error_code === null ? '' : html`<code>${m.error_code}</code> `}${m.error_message ?? ''}</dd></div>`
      : ''
  }
</dl>
<section class="card" aria-labelledby="body-title">
  <h2 id="body-title">Text</h2>
  <p class="message-body">${m.body}</p>
</section>
<section class="card" aria-labelledby="history-title">
  <h2 id="history-title">Status history</h2>
  ${
    m.status_history.length === 0
      ? html`<p class="muted">No status recorded yet.</p>`
      : html`<ol class="timeline">${m.status_history.map(
          (h) =>
            html`<li>${statusBadge(h.status)} ${exactTime(h.at)}${h.error_code === null ? '' : html` <span class="small">error <code>${h.error_code}</code></span>`}</li>`,
        )}</ol>`
  }
</section>
<section class="card" aria-labelledby="metadata-title">
  <h2 id="metadata-title">Metadata</h2>
  ${
    m.metadata === null
      ? html`<p class="muted">None.</p>`
      : html`<pre class="code-block" tabindex="0">${JSON.stringify(m.metadata, null, 2)}</pre>`
  }
</section>`,
  });
}
