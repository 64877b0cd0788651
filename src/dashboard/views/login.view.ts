import { html, type SafeHtml } from '../html.ts';
import { page } from './layout.ts';

export function loginPage(p: { csrf: string; email: string; next: string; error: string | null }): SafeHtml {
  return page({
    title: 'Sign in',
    nav: null,
    user: null,
    body: html`<section class="card narrow">
  <h1>Sign in</h1>
  <p class="muted">Manage your API keys, webhooks, calls and usage.</p>
  ${p.error ? html`<div class="flash flash-error" role="alert" id="login-error">${p.error}</div>` : ''}
  <form method="post" action="/dashboard/login" class="stack">
    <input type="hidden" name="_csrf" value="${p.csrf}">
    <input type="hidden" name="next" value="${p.next}">
    <div class="field">
      <label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="username" required value="${p.email}"
        ${p.error ? html`aria-describedby="login-error"` : ''} autofocus>
    </div>
    <div class="field">
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required>
    </div>
    <button class="button primary" type="submit">Sign in</button>
  </form>
  <p class="muted small">No account yet? Your account manager creates the first user of your organisation.</p>
</section>`,
  });
}
