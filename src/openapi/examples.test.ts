import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ZodType } from 'zod';
import { EVENT_TYPES } from '../db/tables/events.table.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';
import { eventEnvelopeSchemas } from '../webhooks/envelope.ts';
import { curlSample, literal, type RequestExample, SDK_CALLS, sdkSample } from './code-samples.ts';
import { exampleFor } from './example-values.ts';
import { isObject, type Json, operationsOf, str } from './json.ts';

const PARTS = { path: 'params', query: 'querystring', header: 'headers' } as const;

/** The zod schema a route validates a part with (`params`, `querystring`, `headers`, `body`), if any. */
function partSchema(route: TestApp['routes'][number], part: string): ZodType | null {
  const schema = isObject(route.schema) ? (route.schema as Json)[part] : undefined;
  return schema instanceof ZodType ? schema : null;
}

/** The zod schema a route documents for a response status and media type. */
function responseSchema(route: TestApp['routes'][number], status: string): ZodType | null {
  const responses = isObject(route.schema) && isObject(route.schema.response) ? route.schema.response : {};
  const entry = responses[status];
  const media = isObject(entry) && isObject(entry.content) ? entry.content['application/json'] : undefined;
  return isObject(media) && media.schema instanceof ZodType ? media.schema : null;
}

/** Every string in a value, with where it is. */
function strings(value: unknown, where = ''): [string, string][] {
  if (typeof value === 'string') return [[where, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${where}[${i}]`));
  if (isObject(value)) return Object.entries(value).flatMap(([k, v]) => strings(v, `${where}.${k}`));
  return [];
}

/** One section of the page, by anchor. */
const section = (html: string, id: string): string => {
  const start = html.indexOf(`<section class="op" id="${id}"`);
  assert.ok(start >= 0, `${id} is on the page`);
  return html.slice(start, html.indexOf('</section>', start));
};

describe('the examples of the OpenAPI document and of the page at /docs', () => {
  let t: TestApp;
  let doc: Json;
  before(async () => {
    t = await startTestApp();
    doc = (await t.request('GET', '/api/v1/openapi.json')).body;
  });
  after(() => t.close());

  it('every operation has its request (curl and SDK) and a response example for each 2xx answer with a body', () => {
    const operations = operationsOf(doc);
    assert.ok(operations.length >= 17, `${operations.length} operations`);
    for (const { method, path, op } of operations) {
      const name = `${method} ${path}`;
      const samples = (Array.isArray(op['x-codeSamples']) ? op['x-codeSamples'] : []).filter(isObject);
      assert.deepEqual(
        samples.map((s) => s.label),
        ['curl', 'SDK'],
        name,
      );
      assert.match(str(samples[0]?.source), /^curl .*"\$BASE_URL\/api\/v1/, name);
      assert.match(str(samples[1]?.source), /from '@voice-calls\/sdk'[\s\S]*await client\./, name);
      const answers = Object.entries(isObject(op.responses) ? op.responses : {}).filter(([s]) =>
        s.startsWith('2'),
      );
      assert.ok(answers.length > 0, name);
      for (const [status, response] of answers) {
        const content = isObject(response) && isObject(response.content) ? response.content : {};
        const medias = 'application/json' in content ? [content['application/json']] : Object.values(content);
        for (const media of medias)
          assert.ok(isObject(media) && 'example' in media, `${name} ${status} has an example`);
      }
    }
  });

  it('every example validates against the zod schema its route validates (or answers) with', () => {
    let checked = 0;
    for (const route of t.routes.filter((r) => r.url.startsWith('/api/v1/') && r.method !== 'HEAD')) {
      const path = route.url.slice('/api/v1'.length).replace(/:(\w+)/g, '{$1}');
      const method = String(route.method).toLowerCase();
      const found = operationsOf(doc).find((o) => o.path === path && o.method === method);
      assert.ok(found, `${method} ${path} is documented`);
      const { op } = found;
      const name = `${method} ${path}`;
      const parameters = (Array.isArray(op.parameters) ? op.parameters : []).filter(isObject);
      for (const [place, part] of Object.entries(PARTS)) {
        const schema = partSchema(route, part);
        const given = parameters.filter((p) => p.in === place);
        if (!schema || given.length === 0) continue;
        const value = Object.fromEntries(
          given.filter((p) => 'example' in p).map((p) => [str(p.name), p.example]),
        );
        // What a client sends: every value as text (the server's own parsers turn it into numbers).
        const sent = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]));
        const result = schema.safeParse(sent);
        assert.ok(result.success, `${name} ${place}: ${JSON.stringify(sent)} ${result.error?.message ?? ''}`);
        checked++;
      }
      const body =
        isObject(op.requestBody) && isObject(op.requestBody.content)
          ? op.requestBody.content['application/json']
          : null;
      const bodySchema = partSchema(route, 'body');
      if (isObject(body) && 'example' in body && bodySchema) {
        const result = bodySchema.safeParse(body.example);
        assert.ok(result.success, `${name} body: ${result.error?.message ?? ''}`);
        checked++;
      }
      for (const [status, response] of Object.entries(isObject(op.responses) ? op.responses : {})) {
        const media =
          isObject(response) && isObject(response.content) ? response.content['application/json'] : null;
        if (!isObject(media) || !('example' in media)) continue;
        const schema = responseSchema(route, status);
        assert.ok(schema, `${name} ${status} has a zod schema`);
        const result = schema.safeParse(media.example);
        assert.ok(result.success, `${name} ${status}: ${result.error?.message ?? ''}`);
        checked++;
      }
    }
    const webhooks = isObject(doc.webhooks) ? doc.webhooks : {};
    for (const event of EVENT_TYPES) {
      const post = isObject(webhooks[event]) ? (webhooks[event] as Json).post : null;
      const content = isObject(post) && isObject(post.requestBody) ? post.requestBody.content : null;
      const media = isObject(content) ? content['application/json'] : null;
      assert.ok(isObject(media) && 'example' in media, `${event} has a payload example`);
      eventEnvelopeSchemas[event].parse(media.example);
      checked++;
    }
    assert.ok(checked >= 40, `${checked} examples checked`);
  });

  it('shows for every operation a curl and an SDK example and a response example; for every event a payload', async () => {
    const page = await t.request('GET', '/docs');
    assert.equal(page.status, 200);
    for (const { op } of operationsOf(doc)) {
      const html = section(page.text, str(op.operationId));
      assert.match(
        html,
        /<h4>Example request<\/h4><figure class="sample"><figcaption>curl<\/figcaption><pre tabindex="0"><code>curl /,
      );
      assert.match(
        html,
        /<figcaption>SDK<\/figcaption><pre tabindex="0"><code>import \{ VoiceCallsClient \}/,
      );
      // An answer without a body (204) has nothing to show.
      const bodies = Object.entries(isObject(op.responses) ? op.responses : {}).filter(
        ([s, r]) => s.startsWith('2') && isObject(r) && isObject(r.content),
      );
      if (bodies.length > 0)
        assert.match(html, /<h4>Example response<\/h4><figure class="sample"><figcaption>2\d\d /);
    }
    for (const event of Object.values(isObject(doc.webhooks) ? doc.webhooks : {})) {
      const post = isObject(event) && isObject(event.post) ? event.post : {};
      assert.match(section(page.text, `event-${str(post.operationId)}`), /<h4>Example payload<\/h4>/);
    }
  });

  it('no example holds a value made up from a bare type ("string"): every such schema carries its own', () => {
    const made = [
      ...operationsOf(doc).flatMap(({ method, path, op }) =>
        strings([op.parameters, op.requestBody, op.responses], `${method} ${path}`),
      ),
      ...strings(doc.webhooks, 'webhooks'),
    ].filter(([where, value]) => value === 'string' && /example/.test(where));
    assert.deepEqual(made, []);
  });
});

describe('example values and code samples', () => {
  const doc: Json = {
    components: {
      schemas: {
        Thing: {
          type: 'object',
          properties: { id: { type: 'string', format: 'uuid' } },
          examples: [{ id: 'given' }],
        },
      },
    },
  };

  it('take a schema’s own example first, then build one from its type', () => {
    const cases: [string, unknown, unknown][] = [
      ['own examples', { type: 'string', examples: ['a'] }, 'a'],
      ['a component’s example through $ref', { $ref: '#/components/schemas/Thing' }, { id: 'given' }],
      ['const', { const: 'pending' }, 'pending'],
      ['first enum value', { type: 'string', enum: ['inbound', 'outbound'] }, 'inbound'],
      [
        'nullable: the value, not null',
        { anyOf: [{ type: 'string', examples: ['x'] }, { type: 'null' }] },
        'x',
      ],
      ['an integer within its bounds', { type: 'integer', minimum: 1, maximum: 100 }, 1],
      ['an integer bounded by the safe range', { type: 'integer', minimum: -(2 ** 53 - 1) }, 0],
      ['a date-time', { type: 'string', format: 'date-time' }, '2026-11-21T10:00:00.000Z'],
      ['an array: one item', { type: 'array', items: { type: 'boolean' } }, [true]],
    ];
    for (const [name, schema, expected] of cases) assert.deepEqual(exampleFor(doc, schema), expected, name);
    const body = {
      type: 'object',
      required: ['a'],
      properties: {
        a: { type: 'string', examples: ['A'] },
        b: { type: 'string' },
        c: { type: 'string', example: 'C' },
      },
    };
    assert.deepEqual(exampleFor(doc, body), { a: 'A', b: 'string', c: 'C' }, 'a response: every field');
    assert.deepEqual(
      exampleFor(doc, body, { requiredOnly: true }),
      { a: 'A', c: 'C' },
      'a request: required and given',
    );
    const uuid = (name: string) => exampleFor(doc, { type: 'string', format: 'uuid' }, { name });
    assert.match(String(uuid('x')), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(uuid('x'), uuid('x'), 'stable');
    assert.notEqual(uuid('x'), uuid('y'), 'distinct per name');
  });

  const request = (over: Partial<RequestExample>): RequestExample => ({
    operationId: 'x',
    method: 'get',
    server: '/api/v1',
    path: '/things/{id}',
    pathParams: { id: 'a/b' },
    query: {},
    headers: {},
    authenticated: true,
    ...over,
  });

  it('quote for the shell and for TypeScript what would break out of a string, and nothing else', () => {
    const curl = curlSample(
      request({
        method: 'post',
        query: { q: "it's !(here)" },
        headers: { 'idempotency-key': "o'k" },
        body: { note: "it's", cmd: '$(rm -rf /) `x` "y"' },
      }),
    );
    assert.equal(
      curl,
      [
        `curl "$BASE_URL/api/v1/things/a%2Fb?q=it%27s%20%21%28here%29" \\`,
        '  -H "Authorization: Bearer $KEY" \\',
        `  -H 'Idempotency-Key: o'\\''k' \\`,
        '  -H "Content-Type: application/json" \\',
        `  -d '{"note":"it'\\''s","cmd":"$(rm -rf /) \`x\` \\"y\\""}'`,
      ].join('\n'),
    );
    assert.equal(
      curlSample(request({ method: 'delete', authenticated: false })),
      'curl -X DELETE "$BASE_URL/api/v1/things/a%2Fb"',
    );
    assert.equal(
      literal({ 'a-b': "it's", n: 1, ok: null, list: [] }),
      `{ 'a-b': 'it\\'s', n: 1, ok: null, list: [] }`,
    );
    assert.equal(literal('line\nbreak'), `'line\\nbreak'`);
  });

  it('call the SDK’s own method where it has one, and client.request for any other operation', () => {
    assert.match(
      sdkSample(request({ operationId: 'getCall', pathParams: { id: 'c1' } })),
      /const call = await client\.calls\.get\('c1'\);$/,
    );
    assert.match(
      sdkSample(request({ operationId: 'someNewOperation', method: 'post', body: { a: 1 } })),
      /const \{ status, data \} = await client\.request\('POST', '\/things\/a%2Fb', \{ body: \{ a: 1 \} \}\);$/,
    );
    assert.ok(Object.keys(SDK_CALLS).length >= 15);
  });
});
