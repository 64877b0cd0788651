import { isObject, type Json, METHODS, str } from './json.ts';
import { anchor, MAX_QUERY_LENGTH, type SearchHits } from './reference-search.ts';

/**
 * The API reference as one server-rendered HTML page, made from the OpenAPI document itself: no CDN, no
 * script, nothing to keep in step by hand. Every string from the document is escaped. Searching is a plain
 * GET form the server answers with the reference cut down to what matches, so it needs no script either.
 */

/** What the page shows: everything, or what a search found (`hits`), or a search it refused (`notice`). */
export type ReferenceView = { query?: string; hits?: SearchHits; notice?: string };

export const escapeHtml = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/** `code` and **bold** of one line of the document's Markdown. */
const inline = (s: string) =>
  escapeHtml(s)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');

/** The little Markdown the document uses: paragraphs, `- ` lists, `code`, **bold**. */
export function markdown(text: string): string {
  return text
    .split(/\n\s*\n/)
    .map((block) => {
      const lines = block.split('\n');
      if (lines.every((l, i) => l.startsWith('- ') || (i > 0 && l.startsWith('  ')))) {
        const items = block
          .split(/\n(?=- )/)
          .map((item) => `<li>${inline(item.slice(2).replace(/\n\s+/g, ' '))}</li>`);
        return `<ul>${items.join('')}</ul>`;
      }
      return `<p>${inline(block.replace(/\n/g, ' '))}</p>`;
    })
    .join('\n');
}

/** Escaped, with a line-break opportunity after each `/` and `.`: long paths and field names wrap there. */
export const breakable = (s: string): string => escapeHtml(s).replace(/([/.])/g, '$1<wbr>');

/** A short, linked type label for a JSON schema: `Call[]`, `string | null`, `"queued"`. */
export function typeLabel(schema: unknown): string {
  if (!isObject(schema)) return 'any';
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').pop() ?? '';
    return `<a href="#schema-${anchor(name)}">${escapeHtml(name)}</a>`;
  }
  if (Array.isArray(schema.allOf)) {
    // `Problem` narrowed to some codes reads as `Problem`; the response's description lists the codes.
    const named = schema.allOf.filter((s) => isObject(s) && typeof s.$ref === 'string');
    return (named.length > 0 ? named : schema.allOf).map(typeLabel).join(' &amp; ');
  }
  if (Array.isArray(schema.anyOf)) return schema.anyOf.map(typeLabel).join(' | ');
  if (Array.isArray(schema.oneOf)) return schema.oneOf.map(typeLabel).join(' | ');
  if ('const' in schema) return `<code>${escapeHtml(JSON.stringify(schema.const))}</code>`;
  if (Array.isArray(schema.enum))
    return schema.enum.map((v) => `<code>${escapeHtml(JSON.stringify(v))}</code>`).join(' | ');
  const types = Array.isArray(schema.type)
    ? schema.type.map(String)
    : schema.type
      ? [String(schema.type)]
      : [];
  const labels = types.map((t) => {
    if (t === 'array') return `${typeLabel(schema.items)}[]`;
    if (t === 'object' && isObject(schema.additionalProperties) && !isObject(schema.properties))
      return `map of ${typeLabel(schema.additionalProperties)}`;
    const format = typeof schema.format === 'string' ? ` (${escapeHtml(schema.format)})` : '';
    return `${escapeHtml(t)}${format}`;
  });
  return labels.length > 0 ? labels.join(' | ') : 'any';
}

/**
 * The rows of an object's fields; nested objects (and objects in arrays) follow their parent as rows of their
 * own, named by path (`data.transcript.segments[].text`), so no table nests in another and none gets wider
 * than the page.
 */
function propertyRows(schema: Json, prefix: string): string[] {
  if (!isObject(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  return Object.entries(schema.properties).flatMap(([name, prop]) => {
    const p = isObject(prop) ? prop : {};
    const path = `${prefix}${name}`;
    const row = `<tr><td><code>${breakable(path)}</code>${required.has(name) ? '' : ' <small>optional</small>'}</td><td>${typeLabel(p)}</td><td>${markdown(str(p.description))}</td></tr>`;
    const nested = isObject(p.properties)
      ? propertyRows(p, `${path}.`)
      : isObject(p.items)
        ? propertyRows(p.items, `${path}[].`)
        : [];
    return [row, ...nested];
  });
}

function propertiesTable(schema: unknown): string {
  if (!isObject(schema) || !isObject(schema.properties)) return '';
  return table(['Field', 'Type', 'Description'], propertyRows(schema, ''));
}

/** A table in a box that scrolls by itself if it must: the page never scrolls sideways. */
const table = (heads: string[], rows: string[]): string =>
  `<div class="tw"><table><thead><tr>${heads.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`;

function parametersTable(parameters: unknown): string {
  if (!Array.isArray(parameters) || parameters.length === 0) return '';
  const rows = parameters.filter(isObject).map((p) => {
    const schema = isObject(p.schema) ? p.schema : {};
    const limits = ['minimum', 'maximum', 'default', 'maxLength', 'pattern']
      .filter((k) => k in schema)
      .map((k) => `${k} ${escapeHtml(JSON.stringify(schema[k]))}`)
      .join(', ');
    return `<tr><td><code>${escapeHtml(str(p.name))}</code> <small>${escapeHtml(str(p.in))}${p.required ? ', required' : ''}</small></td><td>${typeLabel(schema)}${limits ? `<br><small>${limits}</small>` : ''}</td><td>${markdown(str(p.description))}</td></tr>`;
  });
  return `<h4>Parameters</h4>${table(['Name', 'Type', 'Description'], rows)}`;
}

function body(content: unknown): string {
  if (!isObject(content)) return '';
  return Object.entries(content)
    .map(([type, media]) => {
      const schema = isObject(media) ? media.schema : undefined;
      return `<p><small>${escapeHtml(type)}</small> ${typeLabel(schema)}</p>${isObject(schema) && !schema.$ref ? propertiesTable(schema) : ''}`;
    })
    .join('');
}

function responsesTable(responses: unknown): string {
  if (!isObject(responses)) return '';
  const rows = Object.entries(responses).map(([status, r]) => {
    const response = isObject(r) ? r : {};
    const content = isObject(response.content) ? response.content : {};
    const types = Object.values(content)
      .map((m) => (isObject(m) ? typeLabel(m.schema) : ''))
      .join(', ');
    return `<tr><td class="status s${escapeHtml(status[0] ?? '')}">${escapeHtml(status)}</td><td>${types}</td><td>${markdown(str(response.description))}</td></tr>`;
  });
  return `<h4>Responses</h4>${table(['Status', 'Body', 'Meaning'], rows)}`;
}

/** A block of code or JSON under its caption; focusable, as it may scroll sideways. */
const sample = (caption: string, text: string) =>
  `<figure class="sample"><figcaption>${caption}</figcaption><pre tabindex="0"><code>${escapeHtml(text)}</code></pre></figure>`;

const jsonExample = (content: unknown): unknown => {
  const media = isObject(content) ? content['application/json'] : undefined;
  return isObject(media) && 'example' in media ? media.example : undefined;
};

/**
 * The operation's examples from the document: the request as curl and with the SDK (`x-codeSamples`), or an
 * event's payload, and each success answer's body.
 */
function examples(op: Json, isEvent: boolean): string {
  const samples = (Array.isArray(op['x-codeSamples']) ? op['x-codeSamples'] : []).filter(isObject);
  const payload = isEvent && isObject(op.requestBody) ? jsonExample(op.requestBody.content) : undefined;
  const request = isEvent
    ? payload === undefined
      ? ''
      : `<h4>Example payload</h4>${sample('JSON body', JSON.stringify(payload, null, 2))}`
    : samples.length > 0
      ? `<h4>Example request</h4>${samples.map((s) => sample(escapeHtml(str(s.label)), str(s.source))).join('')}`
      : '';
  const answers = Object.entries(isObject(op.responses) ? op.responses : {}).flatMap(([status, r]) => {
    if (!status.startsWith('2') || !isObject(r)) return [];
    const meaning = str(r.description).split(/(?<=\.)\s/)[0] ?? '';
    const value = jsonExample(r.content);
    if (value !== undefined)
      return [sample(`${escapeHtml(status)} ${inline(meaning)}`, JSON.stringify(value, null, 2))];
    // Text bodies (CSV, NDJSON): each media type's example as it is sent.
    return Object.entries(isObject(r.content) ? r.content : {}).flatMap(([type, media]) =>
      isObject(media) && typeof media.example === 'string'
        ? [sample(`${escapeHtml(status)} ${escapeHtml(type)}`, media.example)]
        : [],
    );
  });
  return `${request}${answers.length > 0 ? `<h4>Example response</h4>${answers.join('')}` : ''}`;
}

/** The fields of an entry a search matched, linked to nothing: they are in the tables below. */
const matchedFields = (fields: string[] | undefined) =>
  fields && fields.length > 0
    ? `<p class="matched">Matching fields: ${fields.map((f) => `<code>${breakable(f)}</code>`).join(', ')}</p>`
    : '';

function operation(method: string, path: string, op: Json, idPrefix: string, view: ReferenceView): string {
  const id = anchor(`${idPrefix}${str(op.operationId) || `${method}-${path}`}`);
  const requestBody = isObject(op.requestBody) ? op.requestBody : null;
  return `<section class="op" id="${id}">
<h3><span class="method m-${escapeHtml(method)}">${escapeHtml(method.toUpperCase())}</span> <code class="path">${breakable(path)}</code> ${op.deprecated ? '<small>deprecated</small>' : ''}</h3>
<p class="summary">${escapeHtml(str(op.summary))}</p>
${matchedFields(view.hits?.get(id))}
${markdown(str(op.description))}
${parametersTable(op.parameters)}
${requestBody ? `<h4>Request body</h4>${body(requestBody.content)}` : ''}
${responsesTable(op.responses)}
${examples(op, idPrefix !== '')}
</section>`;
}

/** The search box: a GET form to this page, so it works without script and under `default-src 'none'`. */
const searchForm = (query: string) =>
  `<form class="search" role="search" method="get" action="/docs"><label for="q">Search operations and fields</label> <input type="search" id="q" name="q" value="${escapeHtml(query)}" maxlength="${MAX_QUERY_LENGTH}"> <button type="submit">Search</button></form>`;

/** What a search found, in words, with the way back to the whole reference. */
function searchSummary(
  view: ReferenceView,
  counts: { operations: number; events: number; schemas: number },
): string {
  if (view.notice)
    return `<p class="results" role="alert">${escapeHtml(view.notice)} <a href="/docs">Show everything</a></p>`;
  if (!view.hits) return '';
  const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
  const found = [
    plural(counts.operations, 'operation'),
    plural(counts.events, 'webhook event'),
    plural(counts.schemas, 'schema'),
  ].join(', ');
  const what = view.hits.size === 0 ? 'Nothing matches' : `${found} match`;
  return `<p class="results" role="status">${what} <q>${escapeHtml(view.query ?? '')}</q>. <a href="/docs">Show everything</a></p>`;
}

/**
 * The whole page, or what a search found. `documentUrl` is linked for tools (and for `npm run sdk:generate`).
 */
export function renderReference(doc: Json, documentUrl: string, view: ReferenceView = {}): string {
  const shown = (id: string) => view.notice === undefined && (!view.hits || view.hits.has(id));
  const info = isObject(doc.info) ? doc.info : {};
  const servers = Array.isArray(doc.servers) ? doc.servers.filter(isObject) : [];
  const base = str(servers[0]?.url);
  const tags = (Array.isArray(doc.tags) ? doc.tags : []).filter(isObject);
  const ops: { tag: string; html: string; link: string }[] = [];
  for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op) || !shown(anchor(str(op.operationId)))) continue;
      const tag = Array.isArray(op.tags) ? String(op.tags[0]) : 'Other';
      ops.push({
        tag,
        html: operation(method, `${base}${path}`, op, '', view),
        link: `<a href="#${anchor(str(op.operationId))}"><span class="method m-${method}">${method.toUpperCase()}</span> ${breakable(path)}</a>`,
      });
    }
  }
  const events = Object.entries(isObject(doc.webhooks) ? doc.webhooks : {}).flatMap(([name, item]) => {
    const post = isObject(item) && isObject(item.post) ? item.post : null;
    const id = anchor(`event-${str(post?.operationId)}`);
    return post && shown(id)
      ? [
          {
            html: operation('post', name, post, 'event-', view),
            link: `<a href="#${id}">${escapeHtml(name)}</a>`,
          },
        ]
      : [];
  });
  const schemas = Object.entries(
    isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {},
  )
    .filter(([name]) => shown(`schema-${anchor(name)}`))
    .map(
      ([name, schema]) =>
        `<section class="schema" id="schema-${anchor(name)}"><h3>${escapeHtml(name)}</h3>${matchedFields(view.hits?.get(`schema-${anchor(name)}`))}${markdown(str(isObject(schema) ? schema.description : ''))}${propertiesTable(schema) || `<p>${typeLabel(schema)}</p>`}</section>`,
    );
  const nav = tags
    .map((t) => {
      const links = ops.filter((o) => o.tag === t.name).map((o) => `<li>${o.link}</li>`);
      return links.length ? `<h2>${escapeHtml(str(t.name))}</h2><ul>${links.join('')}</ul>` : '';
    })
    .join('');
  const sections = tags
    .map((t) => {
      const html = ops.filter((o) => o.tag === t.name).map((o) => o.html);
      return html.length
        ? `<section class="tag"><h2 id="tag-${anchor(str(t.name))}">${escapeHtml(str(t.name))}</h2>${markdown(str(t.description))}${html.join('')}</section>`
        : '';
    })
    .join('');
  const contents = `<p><a href="${escapeHtml(documentUrl)}">openapi.json</a></p>${nav}${
    events.length > 0 ? `<h2>Webhooks</h2><ul>${events.map((e) => `<li>${e.link}</li>`).join('')}</ul>` : ''
  }${schemas.length > 0 ? '<h2><a href="#schemas">Schemas</a></h2>' : ''}`;
  const title = `<p><strong>${escapeHtml(str(info.title))}</strong> <small>v${escapeHtml(str(info.version))}</small></p>`;
  const searching = view.hits !== undefined || view.notice !== undefined;
  const intro = `${markdown(str(info.description))}
<p>Base URL: <code>${escapeHtml(base)}</code> on this server. Machine-readable: <a href="${escapeHtml(documentUrl)}"><code>${escapeHtml(documentUrl)}</code></a> (OpenAPI ${escapeHtml(str(doc.openapi))}).</p>
${EXAMPLES_NOTE}`;
  const summary = searchSummary(view, {
    operations: ops.length,
    events: events.length,
    schemas: schemas.length,
  });
  // Wide screens: the contents in a sticky side column. Phones: the same links behind a <details> control
  // (works without script), so they do not push the reference a screen and more down.
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${searching ? 'Search: ' : ''}${escapeHtml(str(info.title))} reference</title><link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml"><link rel="stylesheet" href="/docs/reference.css"></head>
<body><nav class="side" aria-label="Contents">${title}${contents}</nav>
<details class="toc"><summary>${escapeHtml(str(info.title))}: contents</summary><nav aria-label="Contents">${contents}</nav></details>
<main>${searchForm(view.query ?? '')}${summary}<h1>${escapeHtml(str(info.title))}</h1>${searching ? '' : intro}
${sections}
${events.length > 0 ? `<section class="tag"><h2 id="webhooks">Webhooks</h2><p>Sent by this service to your subscription URL.</p>${events.map((e) => e.html).join('')}</section>` : ''}
${schemas.length > 0 ? `<section class="tag"><h2 id="schemas">Schemas</h2>${schemas.join('')}</section>` : ''}</main></body></html>`;
}

/** How to run the examples as written: the two variables they read. */
const EXAMPLES_NOTE = `<p>Every operation has a request example, as <code>curl</code> and with the SDK (<code>@voice-calls/sdk</code>), and a response example, all made from the schemas the server validates with. They read the server's address from <code>BASE_URL</code> (for example <code>https://127.0.0.1:8443</code>) and the key from <code>KEY</code> (curl) or <code>VOICE_CALLS_API_KEY</code> (SDK): <code>export BASE_URL=https://127.0.0.1:8443 KEY=svc_live_… VOICE_CALLS_API_KEY=svc_live_…</code>. Ids in the examples stand for your own.</p>`;

/** Served by the docs routes; the dashboard links the same icon. */
export const FAVICON_PATH = '/docs/favicon.svg';

/** A phone handset on the accent colour: small, and from here (no 404 for /favicon.ico on every page). */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f5fbf"/><path fill="#fff" d="M11.6 7.2c.6-.1 1.2.2 1.5.8l1.7 3.6c.3.6.1 1.3-.4 1.7l-1.6 1.2c.9 2 2.5 3.6 4.5 4.6l1.2-1.6c.4-.5 1.1-.7 1.7-.4l3.6 1.7c.6.3.9.9.8 1.5l-.4 2.6c-.1.7-.7 1.2-1.4 1.2C14.5 24.1 7.9 17.5 7.9 9.2c0-.7.5-1.3 1.2-1.4z"/></svg>`;

export const REFERENCE_CSS = `*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,sans-serif;color:#1d2430;display:flex}
nav{position:sticky;top:0;height:100vh;overflow:auto;width:290px;flex:none;padding:1rem;background:#f4f6f9;border-right:1px solid #dde2ea;font-size:13px}
nav h2{font-size:12px;text-transform:uppercase;letter-spacing:.05em;color:#5a6577;margin:1.2rem 0 .3rem}
nav ul{list-style:none;margin:0;padding:0}nav li a{display:block;padding:2px 0;color:#1d2430;text-decoration:none}
main{padding:1.5rem 2.5rem;max-width:1000px;min-width:0;flex:1 1 auto;overflow-wrap:break-word}
.tw{overflow-x:auto;max-width:100%}.toc{display:none}.path{overflow-wrap:anywhere}td code{overflow-wrap:anywhere}h1{margin-top:0}.tag>h2{border-bottom:2px solid #dde2ea;padding-bottom:.3rem;margin-top:2.5rem}
.op,.schema{border:1px solid #dde2ea;border-radius:6px;padding:.2rem 1rem 1rem;margin:1rem 0}.op h3{font-size:16px}
.summary{font-weight:600}table{border-collapse:collapse;width:100%;margin:.5rem 0;font-size:14px}
th,td{border:1px solid #dde2ea;padding:4px 8px;text-align:left;vertical-align:top}th{background:#f4f6f9}td p{margin:0}
code{font:13px ui-monospace,monospace;background:#f1f3f6;padding:0 3px;border-radius:3px}
.method{display:inline-block;min-width:3.6em;font:700 11px ui-monospace,monospace;padding:2px 4px;border-radius:3px;color:#fff;background:#5a6577;text-align:center}
.m-get{background:#2466b8}.m-post{background:#17723e}.m-delete{background:#b8322a}
.status{font-weight:700}.s2{color:#17723e}.s4{color:#a05a00}.s5{color:#b8322a}
@media (max-width:800px){body{display:block}nav.side{display:none}
.toc{display:block;position:sticky;top:0;z-index:1;background:#f4f6f9;border-bottom:1px solid #dde2ea;font-size:14px}
.toc summary{padding:.7rem 1rem;cursor:pointer;font-weight:600}.toc nav{position:static;height:auto;max-height:70vh;width:auto;border:0}
main{padding:1rem}th,td{padding:4px 6px}td{overflow-wrap:anywhere}}`;
