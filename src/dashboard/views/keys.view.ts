import type { KeyView } from '../../keys/index.ts';
import { AUTOMATION_PRESET, SCOPES } from '../../keys/index.ts';
import { type OutboundLimits, regionList } from '../../outbound-limits.ts';
import { attr, html, type SafeHtml } from '../html.ts';
import type { Flash } from '../sessions.service.ts';
import { badge, time, usd } from './format.ts';
import { crumbs, csrfField, issuesBlock, type PageUser, page } from './layout.ts';

const KEYS = { label: 'API keys', href: '/dashboard/keys' };

const SCOPE_HELP: Record<string, string> = {
  read_assistants: 'List assistants',
  read_calls: 'List and read calls and their transcripts',
  read_analytics: 'Outbound-call transcripts, quality scores and insights',
  outbound_calls: 'Place outbound calls (bounded by the spend cap and countries)',
  manage_webhooks: 'Create, list, delete and rotate webhook subscriptions',
  send_sms: 'Send SMS',
};

export function statusBadge(k: KeyView): SafeHtml {
  if (k.status === 'active') return badge('Active', 'ok');
  if (k.status === 'expired') return badge('Expired', 'warn');
  return badge('Revoked', 'bad');
}

/** A key whose stored cap or allowlist is wider than its customer's limits now allow says so. */
const narrowedNote = (k: KeyView): SafeHtml | string =>
  k.narrowed_by_customer_limits
    ? html`<div class="small muted">Held to your account's outbound limits</div>`
    : '';

const scopeList = (scopes: string[]): SafeHtml =>
  scopes.length === 0
    ? html`<span class="muted">none</span>`
    : html`<ul class="chips">${scopes.map((s) => html`<li><code>${s}</code></li>`)}</ul>`;

export function keysListPage(p: {
  user: PageUser;
  flash: Flash | null;
  keys: KeyView[];
  graceEnds: Map<string, Date>;
}): SafeHtml {
  const rows = p.keys.map(
    (k) => html`<tr>
  <th scope="row"><a href="/dashboard/keys/${k.id}">${k.name}</a><div class="small"><a href="/dashboard/messages?api_key_id=${k.id}">Messages<span class="visually-hidden"> sent with ${k.name}</span></a></div></th>
  <td data-label="Prefix"><code>${k.prefix}…</code></td>
  <td data-label="Scopes">${scopeList(k.scopes)}</td>
  <td data-label="Status">${statusBadge(k)}${p.graceEnds.has(k.id) ? html`<div class="small muted">previous value valid until ${time(p.graceEnds.get(k.id))}</div>` : ''}${narrowedNote(k)}</td>
  <td data-label="Expires">${k.expires_at ? time(k.expires_at) : html`<span class="muted">never</span>`}</td>
  <td data-label="Last used">${k.last_used_at ? time(k.last_used_at) : html`<span class="muted">never</span>`}</td>
  <td data-label="Created">${time(k.created_at)}</td>
</tr>`,
  );
  return page({
    title: 'API keys',
    nav: 'keys',
    user: p.user,
    flash: p.flash,
    body: html`<div class="page-head">
  <h1>API keys</h1>
  <a class="button primary" href="/dashboard/keys/new">Create key</a>
</div>
<p class="muted">Keys authenticate your servers and integrations to the API. Send one as <code>Authorization: Bearer &lt;key&gt;</code>.</p>
${
  p.keys.length === 0
    ? html`<p class="empty">No keys yet. <a href="/dashboard/keys/new">Create your first key</a>.</p>`
    : html`<div class="table-wrap"><table class="cards">
  <caption class="visually-hidden">Your API keys</caption>
  <thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Scopes</th><th scope="col">Status</th><th scope="col">Expires</th><th scope="col">Last used</th><th scope="col">Created</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`
}`,
  });
}

/** Scope checkboxes. */
export function scopeCheckboxes(selected: readonly string[], idPrefix: string): SafeHtml {
  return html`<ul class="checks">${SCOPES.map((s) => {
    const id = `${idPrefix}-${s}`;
    return html`<li>
  <input type="checkbox" id="${id}" name="scopes" value="${s}"${attr('checked', selected.includes(s))}>
  <label for="${id}"><code>${s}</code> <span class="muted">${SCOPE_HELP[s] ?? ''}</span></label>
</li>`;
  })}</ul>`;
}

export type NewKeyValues = {
  name: string;
  preset: 'automation' | 'custom';
  scopes: string[];
  expiresAt: string;
  spendCap: string;
  countries: string;
};

export function newKeyPage(p: {
  user: PageUser;
  values: NewKeyValues;
  /** The customer's outbound limits, set by the operator: the cap and countries must lie inside them. */
  limits: OutboundLimits;
  issues: { field?: string; message: string }[];
}): SafeHtml {
  const v = p.values;
  return page({
    title: 'Create API key',
    nav: 'keys',
    user: p.user,
    body: html`${crumbs([KEYS], 'Create key')}
<h1>Create API key</h1>
${issuesBlock(p.issues)}
<form method="post" action="/dashboard/keys" class="stack card">
  ${csrfField(p.user.csrfToken)}
  <div class="field">
    <label for="name">Name</label>
    <input id="name" name="name" required maxlength="100" value="${v.name}" aria-describedby="name-help">
    <p class="help" id="name-help">Where the key is used, e.g. "Zapier" or "CRM sync".</p>
  </div>
  <fieldset class="field">
    <legend>Access</legend>
    <div class="radio">
      <input type="radio" id="preset-automation" name="preset" value="automation"${attr('checked', v.preset === 'automation')}>
      <label for="preset-automation"><strong>Automation platform</strong> <span class="muted">(Zapier, Make, n8n): ${AUTOMATION_PRESET.join(', ')}</span></label>
    </div>
    <div class="radio">
      <input type="radio" id="preset-custom" name="preset" value="custom"${attr('checked', v.preset === 'custom')}>
      <label for="preset-custom"><strong>Choose scopes</strong></label>
    </div>
    <div class="custom-scopes" id="scopes">${scopeCheckboxes(v.scopes, 'scope')}</div>
  </fieldset>
  <div class="grid-2">
    <div class="field">
      <label for="expires_at">Expires on <span class="muted">(optional, end of that day UTC)</span></label>
      <input id="expires_at" name="expires_at" type="date" value="${v.expiresAt}">
    </div>
    <div class="field">
      <label for="daily_spend_cap_usd">Daily outbound spend cap (USD)</label>
      <input id="daily_spend_cap_usd" name="daily_spend_cap_usd" inputmode="decimal" pattern="\\d{1,10}(\\.\\d{1,2})?" required value="${v.spendCap}" aria-describedby="cap-help">
      <p class="help" id="cap-help">At most ${usd(p.limits.maxDailyCapUsd)}, the largest your account allows.</p>
    </div>
  </div>
  <div class="field">
    <label for="allowed_countries">Countries for outbound calls</label>
    <input id="allowed_countries" name="allowed_countries" required value="${v.countries}" aria-describedby="countries-help">
    <p class="help" id="countries-help">ISO country codes separated by commas, e.g. <code>US, CA</code>; numbers of no country by their code, e.g. <code>+882</code>. Your account may call: <strong>${regionList(p.limits.countries)}</strong>.</p>
  </div>
  <div class="actions">
    <button class="button primary" type="submit">Create key</button>
    <a class="button" href="/dashboard/keys">Cancel</a>
  </div>
</form>`,
  });
}

export function keyDetailPage(p: {
  user: PageUser;
  flash: Flash | null;
  key: KeyView;
  graceEnd: Date | null;
  issues: { field?: string; message: string }[];
}): SafeHtml {
  const k = p.key;
  const live = k.status === 'active';
  return page({
    title: k.name,
    nav: 'keys',
    user: p.user,
    flash: p.flash,
    body: html`${crumbs([KEYS], k.name)}
<div class="page-head"><h1>${k.name}</h1> ${statusBadge(k)}</div>
${issuesBlock(p.issues)}
<dl class="facts">
  <div><dt>Prefix</dt><dd><code>${k.prefix}…</code></dd></div>
  <div><dt>Created</dt><dd>${time(k.created_at)}</dd></div>
  <div><dt>Last used</dt><dd>${k.last_used_at ? time(k.last_used_at) : 'never'}</dd></div>
  <div><dt>Expires</dt><dd>${k.expires_at ? time(k.expires_at) : 'never'}</dd></div>
  <div><dt>Daily spend cap</dt><dd>${usd(k.effective_daily_spend_cap_usd)}${k.effective_daily_spend_cap_usd === k.daily_spend_cap_usd ? '' : html`<div class="small muted">Set to ${usd(k.daily_spend_cap_usd)}; your account's outbound limits allow at most ${usd(k.effective_daily_spend_cap_usd)}.</div>`}</dd></div>
  <div><dt>Outbound countries</dt><dd>${regionList(k.effective_allowed_countries)}${k.effective_allowed_countries.length === k.allowed_countries.length ? '' : html`<div class="small muted">Set to ${regionList(k.allowed_countries)}; your account's outbound limits leave only these.</div>`}</dd></div>
  <div><dt>Text messages</dt><dd><a href="/dashboard/messages?api_key_id=${k.id}">Messages sent with this key</a></dd></div>
  ${k.revoked_at ? html`<div><dt>Revoked</dt><dd>${time(k.revoked_at)}</dd></div>` : ''}
  ${p.graceEnd ? html`<div><dt>Previous value</dt><dd>valid until ${time(p.graceEnd)} (rotation grace period)</dd></div>` : ''}
</dl>
${
  live
    ? html`<section class="card" aria-labelledby="scopes-title">
  <h2 id="scopes-title">Scopes</h2>
  <p class="muted">Changes apply to the very next request made with this key.</p>
  <form method="post" action="/dashboard/keys/${k.id}/scopes" class="stack">
    ${csrfField(p.user.csrfToken)}
    <fieldset><legend class="visually-hidden">Scopes</legend>${scopeCheckboxes(k.scopes, 'scope')}</fieldset>
    <div class="actions"><button class="button primary" type="submit">Save scopes</button></div>
  </form>
</section>
<section class="card" aria-labelledby="rotate-title">
  <h2 id="rotate-title">Rotate</h2>
  <p>Issue a new value for this key. The current value keeps working for a grace period, so you can update your integrations without downtime.</p>
  <form method="post" action="/dashboard/keys/${k.id}/rotate">
    ${csrfField(p.user.csrfToken)}
    <button class="button" type="submit">Rotate key</button>
  </form>
</section>
<section class="card danger" aria-labelledby="revoke-title">
  <h2 id="revoke-title">Revoke</h2>
  <p>Revoking is immediate and cannot be undone: every request with this key fails from then on.</p>
  <a class="button danger" href="/dashboard/keys/${k.id}/revoke">Revoke key…</a>
</section>`
    : html`<section class="card"><h2>Scopes</h2>${scopeList(k.scopes)}<p class="muted">This key is ${k.status}; it can no longer be changed.</p></section>`
}`,
  });
}

export function revokeConfirmPage(p: { user: PageUser; key: KeyView }): SafeHtml {
  const k = p.key;
  return page({
    title: `Revoke ${k.name}`,
    nav: 'keys',
    user: p.user,
    body: html`${crumbs([KEYS, { label: k.name, href: `/dashboard/keys/${k.id}` }], 'Revoke')}
<section class="card danger narrow" aria-labelledby="confirm-title">
  <h1 id="confirm-title">Revoke “${k.name}”?</h1>
  <p>Key <code>${k.prefix}…</code> stops working <strong>immediately</strong>, for every integration that uses it. This <strong>cannot be undone</strong>; you would have to create a new key.</p>
  <form method="post" action="/dashboard/keys/${k.id}/revoke" class="actions">
    ${csrfField(p.user.csrfToken)}
    <button class="button danger" type="submit">Yes, revoke this key</button>
    <a class="button" href="/dashboard/keys/${k.id}">Cancel</a>
  </form>
</section>`,
  });
}
