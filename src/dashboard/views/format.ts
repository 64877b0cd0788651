import { html, type SafeHtml } from '../html.ts';

/** `2026-11-21 10:04 UTC`: one unambiguous format everywhere (the API speaks UTC). */
export function when(iso: string | Date | null | undefined): string {
  if (!iso) return '—';
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  if (Number.isNaN(d.getTime())) return '—';
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A `<time>` element whose machine value is the exact instant. */
export const time = (iso: string | Date | null | undefined): SafeHtml => {
  if (!iso) return html`<span class="muted">—</span>`;
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  return html`<time datetime="${d.toISOString()}">${when(d)}</time>`;
};

export const usd = (amount: string | number | null | undefined): string => {
  if (amount === null || amount === undefined) return '—';
  const n = typeof amount === 'number' ? amount : Number(amount);
  return Number.isFinite(n) ? `$${n.toFixed(2)}` : '—';
};

export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return m > 0 ? `${m}m ${String(s).padStart(2, '0')}s` : `${s}s`;
}

export type BadgeTone = 'ok' | 'warn' | 'bad' | 'muted' | 'info';
export const badge = (text: string, tone: BadgeTone): SafeHtml =>
  html`<span class="badge badge-${tone}">${text}</span>`;

/** A value as `datetime-local` shows it, in UTC (the labels say so). */
export const toLocalInput = (iso: string | undefined): string =>
  iso && !Number.isNaN(Date.parse(iso)) ? new Date(iso).toISOString().slice(0, 16) : '';

/**
 * A URL that may wrap after `/` and `.` (a `<wbr>` after each), never inside a word: long webhook URLs stay
 * readable on a phone. Each piece is escaped.
 */
export const breakableUrl = (url: string): SafeHtml =>
  html`<span class="url">${url.split(/(?<=[/.])/).map((part, i) => (i === 0 ? html`${part}` : html`<wbr>${part}`))}</span>`;

const CALL_STATUS_LABELS: Record<string, string> = {
  queued: 'Queued',
  ringing: 'Ringing',
  in_progress: 'In progress',
  completed: 'Completed',
  no_answer: 'No answer',
  busy: 'Busy',
  failed: 'Failed',
  canceled: 'Canceled',
};

/** A call status as people read it ("No answer"), like the direction badges ("Inbound"). */
export const callStatusLabel = (status: string): string => CALL_STATUS_LABELS[status] ?? status;
