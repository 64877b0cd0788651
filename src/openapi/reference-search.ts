import { isObject, type Json, operationsOf, resolved, str } from './json.ts';

/** Longest search the reference answers: a few words, never a document. */
export const MAX_QUERY_LENGTH = 200;

/** One thing the reference shows, by its anchor on the page: what it is called and what fields it has. */
type Entry = { id: string; text: string; fields: { path: string; text: string }[] };
/** An entry with everything a search looks through, in lower case, made once. */
type Indexed = Entry & { haystack: string };

/** What a search found: the anchor of each operation, event and schema that matches, with its matching fields. */
export type SearchHits = Map<string, string[]>;

/** The id of an element of the reference page: what a link's `#…` and a search hit name. */
export const anchor = (s: string) => s.replace(/[^A-Za-z0-9_-]+/g, '-');

/** The fields of a schema by path (`data[].external_id`), through `$ref`s, each with its description. */
function fieldsOf(doc: Json, schema: unknown, prefix = '', seen = new Set<unknown>()): Entry['fields'] {
  const s = resolved(doc, schema);
  if (!isObject(s) || seen.has(s)) return [];
  seen.add(s);
  const parts = [s.allOf, s.anyOf, s.oneOf].flatMap((list) => (Array.isArray(list) ? list : []));
  const nested = parts.flatMap((part) => fieldsOf(doc, part, prefix, seen));
  if (isObject(s.items)) nested.push(...fieldsOf(doc, s.items, prefix.replace(/\.$/, '[].'), seen));
  const own = Object.entries(isObject(s.properties) ? s.properties : {}).flatMap(([name, prop]) => {
    const path = `${prefix}${name}`;
    const p = resolved(doc, prop);
    const text = isObject(p) ? str(p.description) : '';
    return [{ path, text }, ...fieldsOf(doc, prop, `${path}.`, seen)];
  });
  seen.delete(s);
  return [...own, ...nested];
}

const mediaSchemas = (content: unknown): unknown[] =>
  Object.values(isObject(content) ? content : {}).map((m) => (isObject(m) ? m.schema : undefined));

/** An operation's own words, its parameters, and the fields of its request body and of its answers. */
function operationEntry(doc: Json, id: string, words: string[], op: Json): Entry {
  const params = (Array.isArray(op.parameters) ? op.parameters : [])
    .filter(isObject)
    .map((p) => ({ path: str(p.name), text: str(p.description) }));
  const body = isObject(op.requestBody) ? mediaSchemas(op.requestBody.content) : [];
  const answers = Object.entries(isObject(op.responses) ? op.responses : {})
    .filter(([status]) => status.startsWith('2'))
    .flatMap(([, r]) => (isObject(r) ? mediaSchemas(r.content) : []));
  const fields = [...params, ...[...body, ...answers].flatMap((s) => fieldsOf(doc, s))];
  const text = [...words, str(op.operationId), str(op.summary), str(op.description)].join(' ');
  return { id, text, fields };
}

/** Every operation, webhook event and schema of the document, as the reference page anchors them. */
export function searchIndex(doc: Json): Indexed[] {
  const operations = operationsOf(doc).map(({ method, path, op }) =>
    operationEntry(
      doc,
      anchor(str(op.operationId) || `${method}-${path}`),
      [method, path, ...tagsOf(op)],
      op,
    ),
  );
  const events = Object.entries(isObject(doc.webhooks) ? doc.webhooks : {}).flatMap(([name, item]) =>
    isObject(item) && isObject(item.post)
      ? [operationEntry(doc, anchor(`event-${str(item.post.operationId)}`), [name], item.post)]
      : [],
  );
  const components =
    isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
  const schemas = Object.entries(components).map(([name, schema]) => ({
    id: `schema-${anchor(name)}`,
    text: `${name} ${isObject(schema) ? str(schema.description) : ''}`,
    fields: fieldsOf(doc, schema),
  }));
  return [...operations, ...events, ...schemas].map((entry) => ({
    ...entry,
    haystack: [entry.text, ...entry.fields.flatMap((f) => [f.path, f.text])].join('\n').toLowerCase(),
  }));
}

const tagsOf = (op: Json): string[] => (Array.isArray(op.tags) ? op.tags.map(String) : []);

/**
 * The entries where every word of the query appears (case-insensitive) in the entry's own words or in its
 * fields (name, path or description), each with the fields whose path has one of the words.
 */
export function search(index: Indexed[], query: string): SearchHits {
  const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
  const hits: SearchHits = new Map();
  for (const entry of index) {
    if (!terms.every((t) => entry.haystack.includes(t))) continue;
    const fields = entry.fields
      .map((f) => f.path)
      .filter((path, i, all) => all.indexOf(path) === i && terms.some((t) => path.toLowerCase().includes(t)));
    hits.set(entry.id, fields);
  }
  return hits;
}
