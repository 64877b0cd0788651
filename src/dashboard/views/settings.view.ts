import type { CallDataSettings } from '../../customers/index.ts';
import { attr, html, type SafeHtml } from '../html.ts';
import type { Flash } from '../sessions.service.ts';
import { csrfField, issuesBlock, type PageUser, page } from './layout.ts';

/** What the form shows: the choice made, and the days typed. */
export type SettingsValues = { retention: 'default' | 'days' | 'forever'; days: string; redact: boolean };

const period = (days: number | null): string =>
  days === null ? 'for ever' : `${days} day${days === 1 ? '' : 's'}`;

/** The form's values from the stored settings. */
export function settingsValues(s: CallDataSettings): SettingsValues {
  return {
    retention: s.call_retention_is_default ? 'default' : s.call_retention_days === null ? 'forever' : 'days',
    days: s.call_retention_is_default || s.call_retention_days === null ? '' : String(s.call_retention_days),
    redact: s.redact_transcripts,
  };
}

/** Settings: how long calls are kept, and transcript redaction; the account's, for live and test data alike. */
export function settingsPage(p: {
  user: PageUser;
  flash?: Flash | null;
  settings: CallDataSettings;
  values: SettingsValues;
  issues: { field?: string; message: string }[];
}): SafeHtml {
  const { settings: s, values: v } = p;
  const longest = s.call_retention_max_days;
  return page({
    title: 'Settings',
    nav: 'settings',
    user: p.user,
    flash: p.flash ?? null,
    body: html`<h1>Settings</h1>
<p class="muted">For your account's live and test data alike.</p>
${issuesBlock(p.issues)}
<form method="post" action="/dashboard/settings" class="stack card">
  ${csrfField(p.user.csrfToken)}
  <h2>Data retention</h2>
  <p>Your calls are kept <strong>${period(s.call_retention_days)}</strong>${s.call_retention_is_default ? ' (the service default)' : ''}. A call older than that is deleted with everything of it: its transcript, summary and insights, its webhook events and their deliveries. What it cost stays in your usage.</p>
  <fieldset class="field" id="retention">
    <legend>Keep calls</legend>
    <div class="radio">
      <input type="radio" id="retention-default" name="retention" value="default"${attr('checked', v.retention === 'default')}>
      <label for="retention-default">The service default: ${period(s.call_retention_default_days)}</label>
    </div>
    <div class="radio">
      <input type="radio" id="retention-days" name="retention" value="days"${attr('checked', v.retention === 'days')}>
      <label for="retention-days">For a number of days</label>
    </div>
    ${
      longest === null
        ? html`<div class="radio">
      <input type="radio" id="retention-forever" name="retention" value="forever"${attr('checked', v.retention === 'forever')}>
      <label for="retention-forever">For ever</label>
    </div>`
        : ''
    }
  </fieldset>
  <div class="field">
    <label for="retention_days">Days</label>
    <input id="retention_days" name="retention_days" inputmode="numeric" pattern="\\d{1,5}" value="${v.days}" aria-describedby="days-help">
    <p class="help" id="days-help">From ${s.call_retention_min_days} to ${longest ?? 36_500} days${longest === null ? '' : ', the longest this service keeps calls'}. Calls are deleted within a quarter of an hour of reaching it.</p>
  </div>
  <h2>Transcript redaction</h2>
  <ul class="checks">
    <li><input type="checkbox" id="redact_transcripts" name="redact_transcripts" value="on"${attr('checked', v.redact)} aria-describedby="redact-help"><label for="redact_transcripts">Mask phone numbers, e-mail addresses and card numbers in transcripts and summaries</label></li>
  </ul>
  <p class="help" id="redact-help">They are replaced by <code>[phone]</code>, <code>[email]</code> and <code>[card]</code> before a transcript or summary is stored, and in <code>call.transcript.ready</code> webhooks. Transcripts already stored are masked when read; what was stored masked stays masked if you turn this off.</p>
  <div class="actions">
    <button class="button primary" type="submit">Save settings</button>
  </div>
</form>`,
  });
}
