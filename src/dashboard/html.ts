/**
 * Server-rendered HTML with escaping by default: every value interpolated into `html`…`` is escaped
 * unless it is itself `SafeHtml` (made by `html` or, for trusted fragments only, by `raw`).
 */
export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

export const escapeHtml = (s: string): string => s.replace(/[&<>"'`]/g, (c) => ESCAPES[c] ?? c);

/** Values an interpolation accepts: nothing (null, undefined, false) renders as the empty string. */
export type HtmlValue =
  | SafeHtml
  | string
  | number
  | bigint
  | boolean
  | null
  | undefined
  | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false || value === true) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new SafeHtml(out);
}

/** Marks a string as trusted markup. Only for fragments we wrote ourselves, never for data. */
export const raw = (trusted: string): SafeHtml => new SafeHtml(trusted);

/** `checked`, `selected`, `disabled`… as a bare attribute when true. */
export const attr = (name: string, on: boolean): SafeHtml => raw(on ? ` ${escapeHtml(name)}` : '');
