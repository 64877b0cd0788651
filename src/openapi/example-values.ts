import { createHash } from 'node:crypto';
import { isObject, type Json, resolved } from './json.ts';

/** One instant for every synthesized time, so the examples read as one moment and never change between builds. */
const INSTANT = '2026-11-21T10:00:00.000Z';

/** A stable UUID (version 4 layout) per field name: distinct ids read as distinct things. */
function uuidFor(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const FORMATS: Record<string, (name: string) => string> = {
  uuid: uuidFor,
  'date-time': () => INSTANT,
  date: () => INSTANT.slice(0, 10),
  uri: () => 'https://example.com/hooks',
  email: () => 'ops@example.com',
};

const DEPTH_LIMIT = 12;

/**
 * A value for a JSON schema of the document, made from the schema alone: its own example first (`examples`,
 * `example`, `const`, `default`, the first `enum` value), else one built from its type (every property of an
 * object, or with `requiredOnly` its required ones and those its author gave an example; one item of an array;
 * a format's typical value). Nothing is invented that the schema does not say: a string with a pattern and no
 * example gets no value that matches it, which the test of every example against its zod schema reports.
 */
export function exampleFor(
  doc: Json,
  schema: unknown,
  options: { name?: string; requiredOnly?: boolean } = {},
  depth = 0,
): unknown {
  const s = resolved(doc, schema);
  const name = options.name ?? '';
  if (!isObject(s) || depth > DEPTH_LIMIT) return null;
  const own = ownExample(s);
  if (own.found) return own.value;
  const next = (child: unknown, childName = name) =>
    exampleFor(doc, child, { ...options, name: childName }, depth + 1);
  if (Array.isArray(s.allOf)) {
    const parts = s.allOf.map((part) => next(part));
    return parts.every(isObject) ? Object.assign({}, ...parts) : parts.at(-1);
  }
  const choices = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : null;
  if (choices) return next(choices.find((c) => !(isObject(c) && c.type === 'null')) ?? choices[0]);
  const types = Array.isArray(s.type) ? s.type.map(String) : [String(s.type ?? 'object')];
  const type = types.find((t) => t !== 'null') ?? 'null';
  if (type === 'object') return objectExample(s, next, options.requiredOnly === true);
  if (type === 'array') {
    const count = typeof s.minItems === 'number' && s.minItems > 1 ? s.minItems : 1;
    return Array.from({ length: count }, () => next(s.items));
  }
  if (type === 'string') {
    const format = typeof s.format === 'string' ? FORMATS[s.format] : undefined;
    return format ? format(name) : 'string';
  }
  if (type === 'integer' || type === 'number') {
    // 0 where the bounds allow it (zod's integers are bounded by the safe range, which reads as noise).
    const min = typeof s.minimum === 'number' ? s.minimum : -Infinity;
    const max = typeof s.maximum === 'number' ? s.maximum : Infinity;
    return Math.min(Math.max(0, min), max);
  }
  if (type === 'boolean') return true;
  return null;
}

function ownExample(s: Json): { found: boolean; value?: unknown } {
  if (Array.isArray(s.examples) && s.examples.length > 0) return { found: true, value: s.examples[0] };
  for (const key of ['example', 'const', 'default']) if (key in s) return { found: true, value: s[key] };
  if (Array.isArray(s.enum) && s.enum.length > 0) return { found: true, value: s.enum[0] };
  return { found: false };
}

/** An example its author wrote, as opposed to a value the type allows. */
const exemplified = (s: Json): boolean =>
  (Array.isArray(s.examples) && s.examples.length > 0) || 'example' in s;

function objectExample(
  s: Json,
  next: (child: unknown, name?: string) => unknown,
  requiredOnly: boolean,
): Json {
  const properties = isObject(s.properties) ? s.properties : {};
  const required = new Set(Array.isArray(s.required) ? s.required.map(String) : []);
  const shown = Object.entries(properties).filter(
    ([key, prop]) => !requiredOnly || required.has(key) || (isObject(prop) && exemplified(prop)),
  );
  return Object.fromEntries(shown.map(([key, prop]) => [key, next(prop, key)]));
}
