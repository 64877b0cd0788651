import type { DeliveryLogRow, SubscriptionView } from '../../webhooks/index.ts';
import { AUTO_DISABLE_AFTER, EVENT_TYPES, FAILURES_NEAR_LIMIT } from '../../webhooks/index.ts';
import { type DeliveryLogQuery, LOG_PAGE_SIZE } from '../dashboard.services.ts';
import { attr, html, type SafeHtml } from '../html.ts';
import type { Flash } from '../sessions.service.ts';
import { badge, breakableUrl, time } from './format.ts';
import { crumbs, csrfField, issuesBlock, type PageUser, page } from './layout.ts';

const WEBHOOKS = { label: 'Webhooks', href: '/dashboard/webhooks' };

const answerBadge = (code: number | null): SafeHtml =>
  code === null
    ? html`<span class="muted">—</span>`
    : badge(String(code), code >= 200 && code < 300 ? 'ok' : 'bad');

const deliveryBadge = (status: string, subActive: boolean): SafeHtml =>
  status === 'delivered'
    ? badge('Delivered', 'ok')
    : status === 'failed'
      ? badge('Failed', 'bad')
      : subActive
        ? badge('Retrying', 'warn')
        : badge('Waiting', 'muted');

const testBadge = html` <span class="badge badge-info" title="Sent with “Send test event”; not a real call">Test</span>`;

export function stateBadge(s: SubscriptionView): SafeHtml {
  if (s.is_active && s.consecutive_failures >= FAILURES_NEAR_LIMIT)
    return badge(`Failing: ${s.consecutive_failures} of ${AUTO_DISABLE_AFTER}`, 'warn');
  if (s.is_active) return badge('Active', 'ok');
  if (s.disabled_reason === 'disabled by the customer') return badge('Disabled', 'muted');
  return badge('Auto-disabled', 'bad');
}

const events = (list: string[]): SafeHtml =>
  html`<ul class="chips">${list.map((e) => html`<li><code>${e}</code></li>`)}</ul>`;

export function webhooksListPage(p: {
  user: PageUser;
  flash: Flash | null;
  subs: SubscriptionView[];
}): SafeHtml {
  const rows = p.subs.map(
    (s) => html`<tr>
  <th scope="row"><a href="/dashboard/webhooks/${s.id}">${breakableUrl(s.url)}</a>${s.description ? html`<div class="small muted">${s.description}</div>` : ''}</th>
  <td data-label="Events">${events(s.events)}</td>
  <td data-label="State">${stateBadge(s)}${!s.is_active && s.disabled_reason ? html`<div class="small muted">${s.disabled_reason}</div>` : ''}</td>
  <td class="num" data-label="Failures">${s.consecutive_failures}</td>
  <td data-label="Created">${time(s.created_at)}</td>
</tr>`,
  );
  return page({
    title: 'Webhooks',
    nav: 'webhooks',
    user: p.user,
    flash: p.flash,
    body: html`<div class="page-head">
  <h1>Webhooks</h1>
  <a class="button primary" href="/dashboard/webhooks/new">Add endpoint</a>
</div>
<p class="muted">Signed events are POSTed to your endpoints. After 10 consecutive failed deliveries an endpoint is auto-disabled (failures within 5 seconds of each other count once); re-enable it here once it works again.</p>
${
  p.subs.length === 0
    ? html`<p class="empty">No webhook endpoints yet.</p>`
    : html`<div class="table-wrap"><table class="cards">
  <caption class="visually-hidden">Your webhook subscriptions</caption>
  <thead><tr><th scope="col">Endpoint</th><th scope="col">Events</th><th scope="col">State</th><th scope="col" class="num">Consecutive failures</th><th scope="col">Created</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`
}`,
  });
}

export type NewWebhookValues = { url: string; events: string[]; description: string };

export function newWebhookPage(p: {
  user: PageUser;
  values: NewWebhookValues;
  issues: { field?: string; message: string }[];
}): SafeHtml {
  const v = p.values;
  return page({
    title: 'Add webhook endpoint',
    nav: 'webhooks',
    user: p.user,
    body: html`${crumbs([WEBHOOKS], 'Add endpoint')}
<h1>Add webhook endpoint</h1>
${issuesBlock(p.issues)}
<form method="post" action="/dashboard/webhooks" class="stack card">
  ${csrfField(p.user.csrfToken)}
  <div class="field">
    <label for="url">Endpoint URL</label>
    <input id="url" name="url" type="url" required maxlength="2048" placeholder="https://example.com/hooks" value="${v.url}">
  </div>
  <fieldset class="field" id="events">
    <legend>Events</legend>
    <ul class="checks">
      ${EVENT_TYPES.map(
        (e) =>
          html`<li><input type="checkbox" id="event-${e}" name="events" value="${e}"${attr('checked', v.events.includes(e))}><label for="event-${e}"><code>${e}</code></label></li>`,
      )}
    </ul>
  </fieldset>
  <div class="field">
    <label for="description">Description <span class="muted">(optional)</span></label>
    <input id="description" name="description" maxlength="500" value="${v.description}">
  </div>
  <div class="actions">
    <button class="button primary" type="submit">Add endpoint</button>
    <a class="button" href="/dashboard/webhooks">Cancel</a>
  </div>
</form>`,
  });
}

const emptyLog = (q: DeliveryLogQuery): string =>
  q.cursor || q.page > 0
    ? 'No attempts on this page.'
    : q.failedOnly
      ? 'No failed attempts.'
      : 'No delivery attempts yet. Send a test event to try the endpoint.';

/** A link to another page of the log with the same filter and size: `cursor` to continue, else `page`. */
function logPageHref(base: string, q: DeliveryLogQuery, to: { page: number; cursor?: string }): string {
  const params = new URLSearchParams();
  if (q.failedOnly) params.set('outcome', 'failed');
  if (q.limit !== LOG_PAGE_SIZE) params.set('limit', String(q.limit));
  if (to.cursor) params.set('cursor', to.cursor);
  if (to.page > 0) params.set('page', String(to.page));
  const query = params.toString();
  return query ? `${base}?${query}` : base;
}

/**
 * Newer and older pages, as the API pages: the older page continues from this one's last attempt by cursor
 * (nothing repeated or skipped while new attempts arrive), and carries its page number, from which the newer
 * link goes back by offset.
 */
function logPager(base: string, q: DeliveryLogQuery, nextCursor: string | null): SafeHtml {
  if (!nextCursor && q.page === 0 && !q.cursor) return html``;
  return html`<nav class="pager" aria-label="Delivery log pages">
  ${q.page > 0 || q.cursor ? html`<a class="button" rel="prev" href="${logPageHref(base, q, { page: Math.max(0, q.page - 1) })}">← Newer</a>` : ''}
  <span class="muted">Page ${q.page + 1}</span>
  ${nextCursor ? html`<a class="button" rel="next" href="${logPageHref(base, q, { page: q.page + 1, cursor: nextCursor })}">Older →</a>` : ''}
</nav>`;
}

export function webhookDetailPage(p: {
  user: PageUser;
  flash: Flash | null;
  sub: SubscriptionView;
  log: { data: DeliveryLogRow[]; next_cursor: string | null };
  paging: DeliveryLogQuery;
  charts: SafeHtml;
  nowLocal: string;
}): SafeHtml {
  const s = p.sub;
  const csrf = csrfField(p.user.csrfToken);
  const base = `/dashboard/webhooks/${s.id}`;
  const failedOnly = p.paging.failedOnly;
  const logRows = p.log.data.map(
    (a) => html`<tr${a.is_test ? html` class="is-test"` : ''}>
  <td data-label="Time"><a href="${base}/attempts/${a.id}">${time(a.attempted_at)}<span class="visually-hidden">: attempt details</span></a></td>
  <td data-label="Event"><code>${a.event_type}</code>${a.is_test ? testBadge : ''}<div class="small muted mono">${a.event_id}</div></td>
  <td data-label="Status">${answerBadge(a.status_code)}</td>
  <td class="num" data-label="Latency">${a.latency_ms} ms</td>
  <td data-label="Error">${a.error ?? html`<span class="muted">—</span>`}</td>
  <td data-label="Delivery">${deliveryBadge(a.delivery_status, s.is_active)}</td>
  <td data-label=""><form method="post" action="${base}/redeliver">${csrf}<input type="hidden" name="event_id" value="${a.event_id}"><button class="button small" type="submit">Redeliver<span class="visually-hidden"> event ${a.event_id}</span></button></form></td>
</tr>`,
  );
  return page({
    title: 'Webhook endpoint',
    nav: 'webhooks',
    user: p.user,
    flash: p.flash,
    body: html`${crumbs([WEBHOOKS], breakableUrl(s.url))}
<div class="page-head"><h1 class="url-title">${breakableUrl(s.url)}</h1> ${stateBadge(s)}</div>
${
  s.is_active
    ? ''
    : html`<div class="flash flash-error" role="status">This endpoint is disabled${s.disabled_reason ? html` (${s.disabled_reason})` : ''}. New events are not queued for it; deliveries already pending wait and go out when you re-enable it.</div>`
}
<dl class="facts">
  <div><dt>ID</dt><dd><code>${s.id}</code></dd></div>
  <div><dt>Events</dt><dd>${events(s.events)}</dd></div>
  <div><dt>Consecutive failures</dt><dd>${s.consecutive_failures} of ${AUTO_DISABLE_AFTER}</dd></div>
  <div><dt>Created</dt><dd>${time(s.created_at)}</dd></div>
  ${s.description ? html`<div><dt>Description</dt><dd>${s.description}</dd></div>` : ''}
</dl>
<section class="card" aria-labelledby="actions-title">
  <h2 id="actions-title">Actions</h2>
  <div class="action-grid">
    ${
      s.is_active
        ? html`<form method="post" action="${base}/disable">${csrf}<button class="button" type="submit">Disable</button></form>`
        : html`<form method="post" action="${base}/enable">${csrf}<button class="button primary" type="submit">Re-enable</button></form>`
    }
    <form method="post" action="${base}/test">${csrf}<button class="button" type="submit">Send test event</button></form>
    <form method="post" action="${base}/rotate-secret">${csrf}<button class="button" type="submit">Rotate signing secret</button></form>
    <a class="button danger" href="${base}/delete">Delete…</a>
  </div>
  <form method="post" action="${base}/redeliver" class="inline-form">
    ${csrf}
    <label for="since">Redeliver every event since <span class="muted">(UTC)</span></label>
    <input id="since" name="since" type="datetime-local" required value="${p.nowLocal}">
    <button class="button" type="submit">Redeliver</button>
  </form>
</section>
${p.charts}
<section aria-labelledby="log-title">
  <h2 id="log-title">Delivery log</h2>
  <nav class="segmented" aria-label="Filter the delivery log">
    <a href="${base}"${failedOnly ? '' : html` aria-current="page"`}>All attempts</a>
    <a href="${base}?outcome=failed"${failedOnly ? html` aria-current="page"` : ''}>Failed only</a>
  </nav>
  ${
    p.log.data.length === 0
      ? html`<p class="empty">${emptyLog(p.paging)}</p>`
      : html`<div class="table-wrap"><table class="cards log">
  <caption class="visually-hidden">Delivery attempts, newest first</caption>
  <thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col" class="num">Latency</th><th scope="col">Error</th><th scope="col">Delivery</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
  <tbody>${logRows}</tbody>
</table></div>`
  }
  ${logPager(base, p.paging, p.log.next_cursor)}
</section>`,
  });
}

export function deleteWebhookPage(p: { user: PageUser; sub: SubscriptionView }): SafeHtml {
  const s = p.sub;
  return page({
    title: 'Delete webhook endpoint',
    nav: 'webhooks',
    user: p.user,
    body: html`${crumbs([WEBHOOKS, { label: breakableUrl(s.url), href: `/dashboard/webhooks/${s.id}` }], 'Delete')}
<section class="card danger narrow" aria-labelledby="confirm-title">
  <h1 id="confirm-title">Delete this endpoint?</h1>
  <p><code>${breakableUrl(s.url)}</code> will receive no more events, and pending deliveries to it are dropped. This cannot be undone.</p>
  <form method="post" action="/dashboard/webhooks/${s.id}/delete" class="actions">
    ${csrfField(p.user.csrfToken)}
    <button class="button danger" type="submit">Yes, delete it</button>
    <a class="button" href="/dashboard/webhooks/${s.id}">Cancel</a>
  </form>
</section>`,
  });
}

type AttemptDetail = {
  id: number;
  attempted_at: Date;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_excerpt: string | null;
  delivery_id: string;
  delivery_status: string;
  delivery_attempts: number;
  event_id: string;
  event_type: string;
  event_data: unknown;
  headers: [string, string][];
  body: string;
};

const isTestData = (data: unknown): boolean =>
  typeof data === 'object' && data !== null && (data as { test?: unknown }).test === true;

/** One delivery attempt: what was sent (headers with signatures redacted, body) and how the receiver answered. */
export function attemptPage(p: { user: PageUser; sub: SubscriptionView; attempt: AttemptDetail }): SafeHtml {
  const s = p.sub;
  const a = p.attempt;
  const base = `/dashboard/webhooks/${s.id}`;
  return page({
    title: 'Delivery attempt',
    nav: 'webhooks',
    user: p.user,
    body: html`${crumbs([WEBHOOKS, { label: breakableUrl(s.url), href: base }], 'Attempt')}
<div class="page-head"><h1>Attempt ${time(a.attempted_at)}</h1> ${answerBadge(a.status_code)}${isTestData(a.event_data) ? testBadge : ''}</div>
<dl class="facts">
  <div><dt>Event</dt><dd><code>${a.event_type}</code> <span class="small muted mono">${a.event_id}</span></dd></div>
  <div><dt>Delivery</dt><dd>${deliveryBadge(a.delivery_status, s.is_active)} <span class="small muted">${a.delivery_attempts} attempt${a.delivery_attempts === 1 ? '' : 's'}</span></dd></div>
  <div><dt>Latency</dt><dd>${a.latency_ms} ms</dd></div>
  <div><dt>Error</dt><dd>${a.error ?? '—'}</dd></div>
</dl>
<section class="card" aria-labelledby="req-title">
  <h2 id="req-title">Request</h2>
  <p class="small muted">POST to <span class="mono">${breakableUrl(s.url)}</span>. Signatures are redacted; the timestamp is when the attempt started.</p>
  <div class="table-wrap"><table class="compact headers">
    <caption class="visually-hidden">Request headers</caption>
    <thead><tr><th scope="col">Header</th><th scope="col">Value</th></tr></thead>
    <tbody>${a.headers.map(([name, value]) => html`<tr><th scope="row" class="mono">${name}</th><td class="mono">${value}</td></tr>`)}</tbody>
  </table></div>
  <h3>Body</h3>
  <pre class="code-block" tabindex="0">${a.body}</pre>
</section>
<section class="card" aria-labelledby="res-title">
  <h2 id="res-title">Response</h2>
  ${
    a.status_code === null
      ? html`<p>No answer: ${a.error ?? 'the attempt failed before a response'}.</p>`
      : html`<p>HTTP ${a.status_code}. The first bytes of the body (at most 1 KiB):</p>
  ${a.response_excerpt === null ? html`<p class="muted">Not recorded: this attempt was made before answers were kept.</p>` : a.response_excerpt === '' ? html`<p class="muted">Empty body.</p>` : html`<pre class="code-block" tabindex="0">${a.response_excerpt}</pre>`}`
  }
</section>
<p><a href="${base}">← Back to the endpoint</a></p>`,
  });
}
