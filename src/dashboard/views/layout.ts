import { FAVICON_PATH } from '../../openapi/index.ts';
import { html, type SafeHtml } from '../html.ts';
import type { Flash } from '../sessions.service.ts';

export type Nav = 'keys' | 'webhooks' | 'calls' | 'messages' | 'assistants' | 'usage' | 'settings' | null;

/** Who is signed in; `mode` is the view (live or test data), `testMode` whether the switch is offered. */
export type PageUser = {
  email: string;
  customerName: string;
  csrfToken: string;
  mode: 'live' | 'test';
  testMode?: boolean;
};

/** The "Viewing test data" switch: a form (it changes the session), back to the page it was used on. */
function viewSwitch(user: PageUser, back: string): SafeHtml {
  if (!user.testMode && user.mode === 'live') return html``;
  const to = user.mode === 'test' ? 'live' : 'test';
  return html`<form method="post" action="/dashboard/view" class="view-switch">${csrfField(user.csrfToken)}<input type="hidden" name="mode" value="${to}"><input type="hidden" name="back" value="${back}"><button class="link-button" type="submit">${to === 'test' ? 'View test data' : 'View live data'}</button></form>`;
}

const NAV: { id: Exclude<Nav, null>; label: string; href: string }[] = [
  { id: 'keys', label: 'API keys', href: '/dashboard/keys' },
  { id: 'webhooks', label: 'Webhooks', href: '/dashboard/webhooks' },
  { id: 'calls', label: 'Calls', href: '/dashboard/calls' },
  { id: 'messages', label: 'Messages', href: '/dashboard/messages' },
  { id: 'assistants', label: 'Assistants', href: '/dashboard/assistants' },
  { id: 'usage', label: 'Usage', href: '/dashboard/usage' },
  { id: 'settings', label: 'Settings', href: '/dashboard/settings' },
];

export const csrfField = (token: string): SafeHtml =>
  html`<input type="hidden" name="_csrf" value="${token}">`;

/** A one-time secret with a copy button (the button works with the small script; the text is selectable). */
export function secretPanel(secret: NonNullable<Flash['secret']>): SafeHtml {
  return html`<section class="secret" aria-labelledby="secret-title">
  <h2 id="secret-title">${secret.label}</h2>
  <p><strong>Copy it now.</strong> It is shown only this once and cannot be recovered.</p>
  <div class="secret-row">
    <code id="secret-value" class="secret-value" tabindex="0">${secret.value}</code>
    <button type="button" class="button" data-copy="secret-value">Copy</button>
    <span class="copy-status" role="status" aria-live="polite"></span>
  </div>
  ${secret.note ? html`<p class="muted">${secret.note}</p>` : ''}
</section>`;
}

function flashBlock(flash: Flash | null): SafeHtml {
  if (!flash) return html``;
  return html`<div class="flash flash-${flash.kind}" role="${flash.kind === 'error' ? 'alert' : 'status'}">${flash.message}</div>
${flash.secret ? secretPanel(flash.secret) : ''}`;
}

export function page(p: {
  title: string;
  nav: Nav;
  user: PageUser | null;
  flash?: Flash | null;
  body: SafeHtml;
}): SafeHtml {
  const header = p.user
    ? html`<header class="top">
  <a class="brand" href="/dashboard/">Voice Calls</a>
  <nav aria-label="Main">
    <ul>
      ${NAV.map(
        (n) =>
          html`<li><a href="${n.href}"${n.id === p.nav ? html` aria-current="page"` : ''}>${n.label}</a></li>`,
      )}
    </ul>
  </nav>
  <div class="who">
    <span class="who-name"><span class="muted">${p.user.customerName}</span> · ${p.user.email}</span>
    ${viewSwitch(p.user, NAV.find((n) => n.id === p.nav)?.href ?? '/dashboard/')}
    <form method="post" action="/dashboard/logout">${csrfField(p.user.csrfToken)}<button class="link-button" type="submit">Sign out</button></form>
  </div>
</header>`
    : html`<header class="top"><span class="brand">Voice Calls</span></header>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${p.title} · Voice Calls dashboard</title>
<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml">
<link rel="stylesheet" href="/dashboard/static/dashboard.css">
<script src="/dashboard/static/dashboard.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${header}
<main id="main" tabindex="-1">
${p.user?.mode === 'test' ? html`<p class="test-banner">Viewing test data: test keys, test calls, test messages and test webhooks only. Nothing here reaches a phone or costs anything.</p>` : ''}
${flashBlock(p.flash ?? null)}
${p.body}
</main>
</body>
</html>
`;
}

/**
 * Where the page sits: links up the way, ending with the page itself (`aria-current`), never with a separator.
 * The separators are drawn by the stylesheet, so they are neither text nor read out.
 */
export function crumbs(
  trail: { label: SafeHtml | string; href: string }[],
  current: SafeHtml | string,
): SafeHtml {
  return html`<nav class="crumbs" aria-label="Breadcrumb"><ol>${trail.map(
    (c) => html`<li><a href="${c.href}">${c.label}</a></li>`,
  )}<li aria-current="page">${current}</li></ol></nav>`;
}

/** Problems from a form, listed above it and linked to each field by id. */
export function issuesBlock(issues: { field?: string; message: string }[]): SafeHtml {
  if (issues.length === 0) return html``;
  return html`<div class="flash flash-error" role="alert">
  <p><strong>Please correct the following:</strong></p>
  <ul>${issues.map((i) => html`<li>${i.field ? html`<a href="#${i.field}">${i.message}</a>` : i.message}</li>`)}</ul>
</div>`;
}

export function errorPage(status: number, title: string, detail: string, user: PageUser | null): SafeHtml {
  return page({
    title,
    nav: null,
    user,
    body: html`<h1>${title}</h1>
<p>${detail}</p>
<p class="muted">Error ${status}.</p>
<p><a href="/dashboard/">Back to the dashboard</a></p>`,
  });
}
