import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { z } from 'zod';
import { assistantSchema } from '../assistants/assistants.views.ts';
import { callSchema } from '../calls/calls.views.ts';
import { EVENT_TYPES } from '../db/tables/events.table.ts';
import { problemSchema } from '../http/responses.ts';
import { identitySchema } from '../keys/whoami.routes.ts';
import { outboundCallSchema } from '../outbound/outbound.views.ts';
import { ANSWERS, advance, BUSY, newCaller, placeCall } from '../testing/outbound.fixtures.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { transcriptSchema } from '../transcripts/transcripts.schema.ts';
import { transcriptReadyData } from '../transcripts/transcripts.service.ts';
import { eventEnvelopeSchemas } from '../webhooks/envelope.ts';
import { subscriptionSchema } from '../webhooks/subscriptions.schema.ts';
import { sampleData } from '../webhooks/test-event.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function operationsOf(doc: Json): { method: string; path: string; op: Json }[] {
  const paths = isObject(doc.paths) ? doc.paths : {};
  return Object.entries(paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const op = isObject(item) ? item[method] : undefined;
      return isObject(op) ? [{ method, path, op }] : [];
    }),
  );
}

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: Json;

  before(async () => {
    t = await startTestApp();
    const res = await t.request('GET', '/api/v1/openapi.json');
    assert.equal(res.status, 200, res.text);
    doc = res.body;
  });
  after(() => t.close());

  it('is served without a key, with the request id and rate headers every response carries', async () => {
    const res = await t.request('GET', '/api/v1/openapi.json');
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'] ?? '', /^application\/json/);
    assert.match(res.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/);
    for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
      assert.ok(res.headers[h], h);
    assert.equal(doc.openapi, '3.1.0');
    // Only this route is public: its neighbours still want a key.
    assert.equal((await t.request('GET', '/api/v1/auth/whoami')).status, 401);
    assert.equal((await t.request('GET', '/api/v1/openapi.jsonx')).status, 401);
  });

  it('documents every /api/v1 route the app registers, and nothing else', () => {
    const registered = t.routes
      .filter((r) => r.url.startsWith('/api/v1/') && r.method !== 'HEAD')
      .map(
        (r) =>
          `${String(r.method).toLowerCase()} ${r.url.slice('/api/v1'.length).replace(/:(\w+)/g, '{$1}')}`,
      )
      .sort();
    const documented = operationsOf(doc)
      .map(({ method, path }) => `${method} ${path}`)
      .sort();
    assert.ok(registered.length >= 15, `found ${registered.length} routes`);
    assert.deepEqual(documented, registered);
  });

  it('gives every route response schemas, an operation id, tags, security and problem responses', () => {
    for (const route of t.routes.filter((r) => r.url.startsWith('/api/v1/') && r.method !== 'HEAD')) {
      const statuses = Object.keys(route.schema?.response ?? {});
      assert.ok(
        statuses.some((s) => s.startsWith('2')),
        `${route.method} ${route.url} documents a success response`,
      );
    }
    const ids = new Set<string>();
    for (const { method, path, op } of operationsOf(doc)) {
      const name = `${method} ${path}`;
      assert.equal(typeof op.operationId, 'string', name);
      assert.ok(!ids.has(String(op.operationId)), `unique operationId ${String(op.operationId)}`);
      ids.add(String(op.operationId));
      assert.ok(op.summary && Array.isArray(op.tags) && op.tags.length === 1, name);
      assert.ok(Array.isArray(op.security), `${name} states its security`);
      const responses = isObject(op.responses) ? op.responses : {};
      for (const [status, response] of Object.entries(responses)) {
        assert.ok(isObject(response) && isObject(response.headers), `${name} ${status} headers`);
        assert.ok('X-Request-Id' in response.headers && 'X-RateLimit-Remaining' in response.headers);
        if (status === '429') assert.ok('Retry-After' in response.headers, `${name} 429 Retry-After`);
        if (status.startsWith('4') || status.startsWith('5')) {
          assert.ok(isObject(response.content) && 'application/problem+json' in response.content, name);
        }
      }
      if (path !== '/openapi.json') {
        assert.ok('401' in responses && '429' in responses && '500' in responses, `${name} auth, rate, 500`);
      }
    }
  });

  it('gives each operation one success shape (a generated client reads it without narrowing), but the spec’s 202s', () => {
    /** Operations whose 2XX responses document more than one body. */
    const withSeveralShapes = (document: Json) =>
      operationsOf(document)
        .filter(({ op }) => {
          const success = Object.entries(isObject(op.responses) ? op.responses : {}).filter(([status]) =>
            status.startsWith('2'),
          );
          return new Set(success.map(([, r]) => JSON.stringify(isObject(r) ? r.content : null))).size > 1;
        })
        .map(({ op }) => op.operationId);
    // The spec's own 202s: a transcript still settling (3.2) and the verification probe (4.8, only with ?challenge=).
    const spec = ['getCallTranscript', 'getOutboundCallTranscript', 'createWebhookSubscription'];
    assert.deepEqual(withSeveralShapes(doc), spec);
    const planted = structuredClone(doc);
    const place = operationsOf(planted).find(({ op }) => op.operationId === 'createOutboundCall')?.op;
    const dryRun = operationsOf(planted).find(({ op }) => op.operationId === 'dryRunOutboundCall')?.op;
    assert.ok(isObject(place?.responses) && isObject(dryRun?.responses));
    place.responses['200'] = dryRun.responses['200'];
    assert.deepEqual(withSeveralShapes(planted), ['createOutboundCall', ...spec]);
  });

  it('states each route’s scope as x-required-scope, as the guard enforces it, and the key as its security', () => {
    const find = (method: string, path: string) =>
      operationsOf(doc).find((o) => o.method === method && o.path === path)?.op ?? {};
    assert.equal(find('get', '/calls')['x-required-scope'], 'read_calls');
    assert.equal(find('get', '/outbound-calls/{id}/transcript')['x-required-scope'], 'read_analytics');
    assert.equal(find('get', '/auth/whoami')['x-required-scope'], undefined);
    // Scopes in a security requirement are for OAuth schemes only (Spectral refuses them on bearer).
    assert.deepEqual(find('get', '/calls').security, [{ apiKey: [] }]);
    assert.deepEqual(find('get', '/auth/whoami').security, [{ apiKey: [] }]);
    assert.deepEqual(find('post', '/webhook-subscriptions').security, [{ apiKey: [] }, {}]);
    assert.deepEqual(find('get', '/openapi.json').security, []);
    for (const route of t.routes.filter((r) => r.url.startsWith('/api/v1/') && r.method !== 'HEAD')) {
      const path = route.url.slice('/api/v1'.length).replace(/:(\w+)/g, '{$1}');
      const op = find(String(route.method).toLowerCase(), path);
      const scope = route.config && 'scope' in route.config ? route.config.scope : undefined;
      assert.equal(op['x-required-scope'], scope, path);
    }
  });

  it('says the webhooks need no API key, and names a licence and a contact', () => {
    const webhooks = isObject(doc.webhooks) ? doc.webhooks : {};
    assert.ok(Object.keys(webhooks).length >= 3);
    for (const [event, item] of Object.entries(webhooks)) {
      assert.deepEqual(isObject(item) && isObject(item.post) ? item.post.security : undefined, [], event);
    }
    const info = isObject(doc.info) ? doc.info : {};
    assert.ok(isObject(info.license) && info.license.name, 'license');
    assert.ok(isObject(info.contact) && info.contact.name, 'contact');
  });

  it('resolves every $ref and keeps no unreferenced schema', () => {
    const components = isObject(doc.components) ? doc.components : {};
    const refs = new Set<string>();
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (isObject(v)) {
        for (const [k, c] of Object.entries(v)) {
          if (k === '$ref' && typeof c === 'string') refs.add(c);
          else walk(c);
        }
      }
    };
    walk(doc);
    for (const ref of refs) {
      const [, group, name] = ref.match(/^#\/components\/(\w+)\/(.+)$/) ?? [];
      assert.ok(group && name, `local ref ${ref}`);
      const table = components[group];
      assert.ok(isObject(table) && name in table, `${ref} resolves`);
    }
    const schemas = isObject(components.schemas) ? Object.keys(components.schemas) : [];
    for (const name of schemas) assert.ok(refs.has(`#/components/schemas/${name}`), `${name} is used`);
    assert.ok(
      schemas.includes('Problem') && schemas.includes('Call') && !schemas.some((s) => s.endsWith('Input')),
    );
  });

  it('describes every webhook event (calls and text messages) with the envelope and the X-Svc-* headers', () => {
    const webhooks = isObject(doc.webhooks) ? doc.webhooks : {};
    assert.deepEqual(Object.keys(webhooks).sort(), [...EVENT_TYPES].sort());
    for (const event of EVENT_TYPES) {
      const post = (webhooks[event] as { post: Json }).post;
      const names = (post.parameters as { name: string; required: boolean }[]).map((p) => p.name);
      for (const h of ['X-Svc-Event', 'X-Svc-Timestamp', 'X-Svc-Signature-256'])
        assert.ok(names.includes(h), h);
      const body = JSON.stringify(post.requestBody);
      assert.match(body, /#\/components\/schemas\/(Call|Sms)\w+Event/);
    }
    const envelope = (doc.components as { schemas: Record<string, Json> }).schemas.CallCompletedEvent;
    assert.deepEqual(envelope?.required, ['id', 'event', 'timestamp', 'sequence', 'livemode', 'data']);
  });

  it('keeps additionalProperties: false for request bodies only (clients must accept new response fields)', () => {
    const text = JSON.stringify(doc.components);
    assert.doesNotMatch(text, /"additionalProperties":false/);
    const outbound = operationsOf(doc).find((o) => o.path === '/outbound-calls')?.op ?? {};
    assert.match(JSON.stringify(outbound.requestBody), /"additionalProperties":false/);
  });

  it('has examples that satisfy their own schemas', () => {
    const schemas: z.ZodType[] = [
      callSchema,
      assistantSchema,
      identitySchema,
      outboundCallSchema,
      transcriptSchema,
      subscriptionSchema,
      problemSchema,
    ];
    for (const schema of schemas) {
      const examples = schema.meta()?.examples;
      assert.ok(Array.isArray(examples) && examples.length > 0);
      for (const example of examples) schema.parse(example);
    }
  });

  it('describes the event data the lifecycle, the transcript job and the dashboard test button produce', async () => {
    const c = await newCaller(t);
    const answered = await placeCall(t, c, { to_number: ANSWERS, external_id: 'crm-1', variables: { a: 1 } });
    const busy = await placeCall(t, c, { to_number: BUSY });
    assert.equal(answered.status, 201, answered.text);
    assert.equal(busy.status, 201, busy.text);
    for (let i = 0; i < 40; i++) await advance(t, 30);
    const events = await t.db
      .selectFrom('events')
      .selectAll()
      .where('customer_id', '=', c.customerId)
      .execute();
    assert.deepEqual(
      events.map((e) => e.type).sort(),
      // A busy call has no conversation, so no insights.
      ['call.completed', 'call.completed', 'call.insight.received'],
    );
    for (const e of events) eventEnvelopeSchemas[e.type].shape.data.parse(e.data);

    const fetched = await t.services.transcripts.fetchAndStore(c.customerId, answered.body.id);
    assert.equal(fetched.state, 'stored');
    if (fetched.state === 'stored') {
      eventEnvelopeSchemas['call.transcript.ready'].shape.data.parse(transcriptReadyData(fetched.transcript));
    }
    for (const type of EVENT_TYPES)
      eventEnvelopeSchemas[type].shape.data.parse(sampleData(type, t.clock.now()));
  });

  it('renders a reference page from the document: every operation and event, no outside resources', async () => {
    const page = await t.request('GET', '/docs');
    assert.equal(page.status, 200);
    assert.match(page.headers['content-type'] ?? '', /^text\/html/);
    assert.match(page.headers['content-security-policy'] ?? '', /default-src 'none'/);
    for (const { op } of operationsOf(doc)) assert.ok(page.text.includes(`id="${String(op.operationId)}"`));
    for (const event of EVENT_TYPES) assert.ok(page.text.includes(event));
    assert.doesNotMatch(page.text, /(src|href)="(https?:)?\/\//, 'nothing loaded from elsewhere');
    assert.doesNotMatch(page.text, /<script/);
    const css = await t.request('GET', '/docs/reference.css');
    assert.equal(css.status, 200);
    assert.match(css.headers['content-type'] ?? '', /^text\/css/);
  });

  it('answers a key with no scope for the doc the same as without one', async () => {
    const c = await newCustomer(t, { scopes: [] });
    const res = await t.request('GET', '/api/v1/openapi.json', { key: c.key });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, doc);
  });
});
