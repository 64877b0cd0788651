import { timingSafeEqual } from 'node:crypto';
import { invalidInput } from '../errors/index.ts';
import { storable, unstorable } from '../http/index.ts';

/** A urlencoded form as @fastify/formbody parses it: repeated fields become arrays. */
export type FormBody = Record<string, string | string[] | undefined>;

export type FieldIssue = { field: string; message: string };

/**
 * The form as posted, each value made fit to show back and to store (`storable`), and an issue for each field
 * whose text the database could not keep as sent (a NUL, an unpaired surrogate): a form that shows itself again
 * shows these beside its own checks; any other refuses the post (`asForm`).
 */
export function readForm(body: unknown): { form: FormBody; issues: FieldIssue[] } {
  const posted = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as FormBody) : {};
  const form: FormBody = {};
  const issues: FieldIssue[] = [];
  for (const [name, value] of Object.entries(posted)) {
    const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
    const what = [name, ...values].map(unstorable).find((w) => w !== null);
    const shown = storable(name);
    if (what) issues.push({ field: shown, message: `“${shown}” must not contain ${what}.` });
    form[shown] = Array.isArray(value) ? value.map(storable) : value === undefined ? value : storable(value);
  }
  return { form, issues };
}

/** The form of a post that shows no form back: input.invalid (a page naming each field) for text not to keep. */
export function asForm(body: unknown): FormBody {
  const { form, issues } = readForm(body);
  if (issues.length > 0)
    throw invalidInput(issues.map((i) => ({ path: ['body', i.field], message: i.message })));
  return form;
}

/** One field's value ('' when absent); a repeated field gives its last value. */
export function field(body: FormBody, name: string): string {
  const v = body[name];
  if (Array.isArray(v)) return v[v.length - 1] ?? '';
  return typeof v === 'string' ? v : '';
}

/** Every value of a repeated field (checkboxes). */
export function fields(body: FormBody, name: string): string[] {
  const v = body[name];
  if (Array.isArray(v)) return v;
  return typeof v === 'string' ? [v] : [];
}

/** Constant-time comparison of two tokens (false when either is empty). */
export function sameToken(a: string, b: string): boolean {
  if (!a || !b) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Query parameters of a GET page: single string values only. */
export function queryOf(query: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof query !== 'object' || query === null) return out;
  for (const [k, v] of Object.entries(query)) {
    if (typeof v === 'string') out[k] = v;
    else if (Array.isArray(v) && typeof v[0] === 'string') out[k] = v[0];
  }
  return out;
}

/** `YYYY-MM-DDTHH:MM` from a datetime-local input, read as UTC, to ISO-8601; other text unchanged. */
export function utcInput(value: string): string {
  const v = value.trim();
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(v)) return `${v}:00Z`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(v)) return `${v}Z`;
  return v;
}
