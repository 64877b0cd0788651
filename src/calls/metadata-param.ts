import { queryParam } from '../pagination/index.ts';

/** As POST /outbound-calls keeps metadata: keys up to 40 characters, values up to 1000. */
const KEY_MAX = 40;
const VALUE_MAX = 1000;
export const METADATA_MAX_PAIRS = 10;

type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };
const fail = (message: string): Parsed<never> => ({ ok: false, message });

/**
 * `key:value`, several joined by `,` (one parameter, since a repeated one is refused). A pair's key ends at its
 * first `:`, so a value may hold `:`; a `\` takes the next character as it is (`\,` `\:` `\\`), for a key with
 * `:` or `,` and a value with `,`. Parsed to the pairs sorted by key, so equal sets bind equal cursors.
 */
export function parseMetadataFilter(raw: string): Parsed<[string, string][]> {
  const pairs = new Map<string, string>();
  let key = '';
  let value = '';
  let inValue = false;
  const finish = (): Parsed<null> => {
    const shown = inValue ? `${key}:${value}` : key;
    if (!inValue) return fail(`Each pair is key:value; "${shown}" has no ":".`);
    if (key.length === 0) return fail(`A key must not be empty ("${shown}").`);
    if (key.length > KEY_MAX) return fail(`Keys are at most ${KEY_MAX} characters.`);
    if (value.length > VALUE_MAX) return fail(`Values are at most ${VALUE_MAX} characters.`);
    if (pairs.has(key)) return fail(`The key "${key}" is given twice.`);
    pairs.set(key, value);
    key = '';
    value = '';
    inValue = false;
    return { ok: true, value: null };
  };
  for (let i = 0; i < raw.length; i++) {
    let ch = raw[i] ?? '';
    if (ch === '\\') {
      i += 1;
      if (i >= raw.length) return fail('A \\ at the end escapes nothing; write \\\\ for a backslash.');
      ch = raw[i] ?? '';
    } else if (ch === ',') {
      const done = finish();
      if (!done.ok) return done;
      continue;
    } else if (ch === ':' && !inValue) {
      inValue = true;
      continue;
    }
    if (inValue) value += ch;
    else key += ch;
  }
  const done = finish();
  if (!done.ok) return done;
  if (pairs.size > METADATA_MAX_PAIRS) return fail(`At most ${METADATA_MAX_PAIRS} pairs.`);
  return { ok: true, value: [...pairs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) };
}

/** The `metadata` filter of GET /calls. */
export const metadataParam = () =>
  queryParam<[string, string][]>(parseMetadataFilter, {
    description:
      'Only calls whose `metadata` (POST /outbound-calls) has these pairs: `key:value`, several joined by `,` ' +
      '(all must match). Values compare as text: a number or boolean as written in JSON (`42`, `true`); a null ' +
      'never matches. A key ends at its first `:`; `\\` escapes the next character (`\\,` `\\:` `\\\\`). ' +
      `At most ${METADATA_MAX_PAIRS} pairs.`,
    examples: ['plan:gold', 'plan:gold,region:eu-west'],
  });
