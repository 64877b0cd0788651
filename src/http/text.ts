import type { Issue } from '../errors/index.ts';

/**
 * What in `text` the database cannot keep, or null. PostgreSQL's `text` and `jsonb` refuse NUL; `jsonb` refuses an
 * unpaired surrogate, and `text` would store U+FFFD in its place, which is not what was sent.
 */
export function unstorable(text: string): string | null {
  if (text.includes('\u0000')) return 'the NUL character (U+0000)';
  if (!text.isWellFormed()) return 'an unpaired surrogate (text that is not valid Unicode)';
  return null;
}

/** `text` with what the database cannot keep replaced by U+FFFD, to be shown back. */
export const storable = (text: string): string => text.replaceAll('\u0000', '\uFFFD').toWellFormed();

/**
 * Every string of a parsed request part that the database cannot keep, object keys included (free-form objects
 * such as `metadata`), as issues under `path`.
 */
export function unstorableText(value: unknown, path: string[]): Issue[] {
  if (typeof value === 'string') {
    const what = unstorable(value);
    return what ? [{ path, message: `Must not contain ${what}.` }] : [];
  }
  if (Array.isArray(value)) return value.flatMap((item, i) => unstorableText(item, [...path, String(i)]));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => {
    const what = unstorable(key);
    const keyIssue = what
      ? [{ path: [...path, storable(key)], message: `Keys must not contain ${what}.` }]
      : [];
    return [...keyIssue, ...unstorableText(item, [...path, storable(key)])];
  });
}
