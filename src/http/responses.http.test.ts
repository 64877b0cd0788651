import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { newCustomer, startTestApp, type TestApp, type TestResponse } from '../testing/test-app.ts';
import { STRICT_TRANSPORT_SECURITY } from './tls.ts';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function assertCommonHeaders(res: TestResponse): void {
  assert.match(res.headers['x-request-id'] ?? '', UUID_RE, 'X-Request-Id is a UUID');
  assert.match(res.headers['x-ratelimit-limit'] ?? '', /^\d+$/);
  assert.match(res.headers['x-ratelimit-remaining'] ?? '', /^\d+$/);
  assert.match(res.headers['x-ratelimit-reset'] ?? '', ISO_RE);
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.equal(res.headers['x-content-type-options'], 'nosniff');
}

function assertProblem(res: TestResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assertCommonHeaders(res);
  assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
  const { type, title, detail, request_id, issues, ...rest } = res.body;
  assert.equal(type, 'about:blank');
  assert.equal(typeof title, 'string');
  assert.ok(title.length > 0);
  assert.equal(res.body.status, status);
  assert.equal(typeof detail, 'string');
  assert.equal(res.body.code, code);
  assert.equal(request_id, res.headers['x-request-id']);
  if (code === 'input.invalid') {
    assert.ok(Array.isArray(issues) && issues.length > 0);
    for (const issue of issues) {
      assert.ok(Array.isArray(issue.path) && issue.path.every((p: unknown) => typeof p === 'string'));
      assert.equal(typeof issue.message, 'string');
    }
  } else {
    assert.equal(issues, undefined, 'issues only on input.invalid');
  }
  assert.deepEqual(Object.keys(rest).sort(), ['code', 'status']);
  assert.ok(!res.text.includes('at '), 'no stack trace');
}

describe('every response carries the headers; every error is a problem', () => {
  let t: TestApp;
  let key: string;
  before(async () => {
    t = await startTestApp({
      bodyLimitBytes: 1024,
      register(app) {
        app.get('/api/v1/test/boom', async () => {
          throw new Error('secret internal detail at db.ts:42');
        });
        app.get('/api/v1/test/scoped', { config: { scope: 'read_calls' } }, async () => ({ ok: true }));
        app.post(
          '/api/v1/test/echo',
          { schema: { body: z.strictObject({ n: z.number().int().max(10), s: z.string() }) } },
          async (request) => request.body,
        );
      },
    });
    key = (await newCustomer(t, { scopes: [] })).key;
  });
  after(() => t.close());

  it('200', async () => {
    const res = await t.request('GET', '/api/v1/auth/whoami', { key });
    assert.equal(res.status, 200);
    assertCommonHeaders(res);
    assert.equal(res.headers['retry-after'], undefined, 'Retry-After only on 429');
  });

  it('401 without a key', async () => {
    assertProblem(await t.request('GET', '/api/v1/auth/whoami'), 401, 'auth.missing');
  });

  it('403 perm.denied when the key lacks the route scope', async () => {
    const res = await t.request('GET', '/api/v1/test/scoped', { key });
    assertProblem(res, 403, 'perm.denied');
    assert.match(res.body.detail, /read_calls/);
  });

  it('404 route.not_found for unknown routes, inside and outside /api/v1', async () => {
    assertProblem(await t.request('GET', '/api/v1/nope', { key }), 404, 'route.not_found');
    assertProblem(await t.request('GET', '/nope'), 404, 'route.not_found');
    assertProblem(await t.request('GET', '/api/v2/calls', { key }), 404, 'route.not_found');
  });

  it('unknown routes under /api/v1 need a key first', async () => {
    assertProblem(await t.request('GET', '/api/v1/nope'), 401, 'auth.missing');
  });

  it('405 with Allow for a known path and another method', async () => {
    const res = await t.request('DELETE', '/api/v1/auth/whoami', { key });
    assertProblem(res, 405, 'route.method_not_allowed');
    assert.match(res.headers.allow ?? '', /GET/);
  });

  it('400 input.malformed for broken JSON and an empty JSON body', async () => {
    const headers = { 'content-type': 'application/json' };
    assertProblem(
      await t.request('POST', '/api/v1/test/echo', { key, headers, rawBody: '{"n": 1,' }),
      400,
      'input.malformed',
    );
    assertProblem(
      await t.request('POST', '/api/v1/test/echo', { key, headers, rawBody: '' }),
      400,
      'input.malformed',
    );
  });

  it('400 input.malformed for a prototype-poisoning body', async () => {
    const rawBody = '{"n": 1, "s": "x", "__proto__": {"admin": true}}';
    const res = await t.request('POST', '/api/v1/test/echo', {
      key,
      headers: { 'content-type': 'application/json' },
      rawBody,
    });
    assertProblem(res, 400, 'input.malformed');
  });

  it('415 for POST without Content-Type: application/json (with or without a body)', async () => {
    const noType = await t.request('POST', '/api/v1/test/echo', { key });
    assertProblem(noType, 415, 'input.unsupported_media_type');
    const text = await t.request('POST', '/api/v1/test/echo', {
      key,
      headers: { 'content-type': 'text/plain' },
      rawBody: '{"n":1,"s":"x"}',
    });
    assertProblem(text, 415, 'input.unsupported_media_type');
  });

  it('accepts application/json with a charset', async () => {
    const res = await t.request('POST', '/api/v1/test/echo', {
      key,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      rawBody: '{"n":1,"s":"x"}',
    });
    assert.equal(res.status, 200);
  });

  it('413 input.too_large for an oversized body', async () => {
    const rawBody = JSON.stringify({ n: 1, s: 'x'.repeat(2048) });
    const res = await t.request('POST', '/api/v1/test/echo', {
      key,
      headers: { 'content-type': 'application/json' },
      rawBody,
    });
    assertProblem(res, 413, 'input.too_large');
  });

  it('422 input.invalid with one issue per problem and paths naming the part', async () => {
    const res = await t.request('POST', '/api/v1/test/echo', { key, body: { n: 99, s: 5, extra: true } });
    assertProblem(res, 422, 'input.invalid');
    const paths = res.body.issues.map((i: { path: string[] }) => i.path.join('.')).sort();
    assert.deepEqual(paths, ['body.extra', 'body.n', 'body.s']);
  });

  it('422 for unknown query parameters', async () => {
    const res = await t.request('GET', '/api/v1/auth/whoami?verbose=1', { key });
    assertProblem(res, 422, 'input.invalid');
    assert.deepEqual(res.body.issues[0].path, ['query', 'verbose']);
  });

  it('500 internal.error hides the cause but logs it with the request id', async () => {
    const res = await t.request('GET', '/api/v1/test/boom', { key });
    assertProblem(res, 500, 'internal.error');
    assert.ok(!res.text.includes('secret internal detail'));
    const logged = t.logs.find((l) => l.includes('secret internal detail'));
    assert.ok(logged?.includes(res.body.request_id));
  });

  it('dashboard pages carry a request id but no API rate headers', async () => {
    const res = await t.request('GET', '/dashboard/login');
    assert.equal(res.status, 200);
    assert.match(res.headers['x-request-id'] ?? '', UUID_RE);
    assert.equal(res.headers['x-ratelimit-limit'], undefined);
    const unknown = await t.request('GET', '/dashboard/nope');
    assert.match(unknown.headers['x-request-id'] ?? '', UUID_RE);
    assert.equal(unknown.headers['x-ratelimit-limit'], undefined, 'unknown dashboard paths too');
  });

  it('every response over TLS carries Strict-Transport-Security, Cache-Control: no-store and X-Content-Type-Options: nosniff: API, errors, dashboard, ops', async () => {
    assert.equal(STRICT_TRANSPORT_SECURITY, 'max-age=31536000; includeSubDomains');
    const headers = { 'content-type': 'application/json' };
    for (const [method, path, options, status] of [
      ['GET', '/api/v1/auth/whoami', { key }, 200],
      ['GET', '/api/v1/auth/whoami', {}, 401],
      ['GET', '/api/v1/test/scoped', { key }, 403],
      ['GET', '/api/v1/nope', { key }, 404],
      ['DELETE', '/api/v1/auth/whoami', { key }, 405],
      ['POST', '/api/v1/test/echo', { key, headers, rawBody: '{' }, 400],
      ['POST', '/api/v1/test/echo', { key, body: { n: 99 } }, 422],
      ['GET', '/api/v1/test/boom', { key }, 500],
      ['GET', '/api/v1/calls/%E0%A4%A', { key }, 400],
      ['GET', '/dashboard/login', {}, 200],
      ['GET', '/dashboard/nope', {}, 303],
      ['GET', '/healthz', {}, 200],
      ['GET', '/nope', {}, 404],
    ] as const) {
      const res = await t.request(method, path, options);
      assert.equal(res.status, status, `${method} ${path}: ${res.text}`);
      assert.equal(res.headers['strict-transport-security'], STRICT_TRANSPORT_SECURITY, `${method} ${path}`);
      assert.equal(res.headers['cache-control'], 'no-store', `${method} ${path}`);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', `${method} ${path}`);
    }
  });

  it('the 201 that shows a new whsec_ secret is not cached', async () => {
    const manager = await newCustomer(t, { scopes: ['manage_webhooks'] });
    const created = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: manager.key,
      body: { url: 'https://example.com/hooks', events: ['call.completed'] },
    });
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.secret, /^whsec_/);
    assert.equal(created.headers['cache-control'], 'no-store');
    assert.equal(created.headers['x-content-type-options'], 'nosniff');
  });

  it('fixed public files may be cached, and are not sniffed either', async () => {
    for (const path of ['/docs/reference.css', '/docs/favicon.svg', '/dashboard/static/dashboard.css']) {
      const res = await t.request('GET', path);
      assert.equal(res.status, 200, path);
      assert.match(res.headers['cache-control'] ?? '', /^public, max-age=\d+$/, path);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', path);
    }
  });

  it('request ids are unique and never taken from the client', async () => {
    const forged = '00000000-0000-4000-8000-000000000000';
    const a = await t.request('GET', '/api/v1/auth/whoami', { key, headers: { 'x-request-id': forged } });
    const b = await t.request('GET', '/api/v1/auth/whoami', { key });
    assert.notEqual(a.headers['x-request-id'], forged);
    assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id']);
  });
});

describe('the API description is served with HSTS, not cached and not sniffed, too', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  for (const path of ['/api/v1/openapi.json', '/docs']) {
    it(path, async () => {
      const res = await t.request('GET', path);
      assert.equal(res.status, 200);
      assert.equal(res.headers['strict-transport-security'], STRICT_TRANSPORT_SECURITY);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
    });
  }
});
