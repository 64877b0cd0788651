import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RawResponse, rawRequest } from '../testing/raw-tls.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';

const UUID_RE = /^[0-9a-f-]{36}$/;
/** The test app's per-IP failure window: what unauthenticated answers report in their rate headers. */
const FAILURE_WINDOW = '1000000';
/** A customer's (and key's) window: what authenticated answers report. */
const KEY_WINDOW = '60';

function send(
  t: TestApp,
  method: string,
  path: string,
  options: { key?: string; headers?: string[]; body?: string; localAddress?: string } = {},
): Promise<RawResponse> {
  const lines = [
    `${method} ${path} HTTP/1.1`,
    'Host: localhost',
    'Connection: close',
    ...(options.headers ?? []),
  ];
  if (options.key) lines.push(`Authorization: Bearer ${options.key}`);
  if (options.body !== undefined) {
    if (!options.headers?.some((h) => /^content-type:/i.test(h)))
      lines.push('Content-Type: application/json');
    lines.push(`Content-Length: ${Buffer.byteLength(options.body)}`);
  }
  return rawRequest(t.url, t.cert, lines.join('\r\n'), options);
}

function assertProblem(res: RawResponse, status: number, code: string, rateLimit: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
  assert.equal(res.body.code, code);
  assert.match(res.body.request_id, UUID_RE);
  assert.equal(res.headers['x-request-id'], res.body.request_id);
  assert.equal(res.headers['x-ratelimit-limit'], rateLimit, 'rate headers of the window that answered');
}

/**
 * How the router reads each spelling of the prefix. `api`: it is the API route itself (decoded), with every
 * check. `api-unknown`: a path under /api/v1 that matches no route: authenticated first, then 404. `not-api`:
 * not under /api/v1 as the router reads it (case, empty segments, double encoding): a plain 404.
 */
const SPELLINGS: [string, (rest: string) => string, 'api' | 'api-unknown' | 'not-api'][] = [
  ['canonical', (rest) => `/api/v1/${rest}`, 'api'],
  ['encoded letter in "api"', (rest) => `/%61pi/v1/${rest}`, 'api'],
  ['encoded letter in "v1"', (rest) => `/api/%761/${rest}`, 'api'],
  ['encoded letters everywhere', (rest) => `/%61%70%69/%76%31/${rest}`, 'api'],
  ['mixed case', (rest) => `/API/v1/${rest}`, 'not-api'],
  ['leading double slash', (rest) => `//api/v1/${rest}`, 'not-api'],
  ['double slash inside the prefix', (rest) => `/api//v1/${rest}`, 'not-api'],
  ['double-encoded letter', (rest) => `/%2561pi/v1/${rest}`, 'not-api'],
  ['dot segment', (rest) => `/api/v1/./${rest}`, 'api-unknown'],
  ['dot-dot segment', (rest) => `/api/v1/calls/../${rest}`, 'api-unknown'],
  ['encoded dot-dot segment', (rest) => `/api/v1/%2e%2e/${rest}`, 'api-unknown'],
  ['encoded slash inside the prefix', (rest) => `/api%2Fv1/${rest}`, 'not-api'],
  ['encoded slash after the prefix', (rest) => `/api/v1/${rest.replaceAll('/', '%2F')}%2F`, 'api-unknown'],
];

const ROUTES: { name: string; method: string; rest: string; body?: string }[] = [
  { name: 'GET /auth/whoami', method: 'GET', rest: 'auth/whoami' },
  { name: 'GET /calls', method: 'GET', rest: 'calls' },
  // `{}` passes the guard and fails validation: the handler's own answer, without placing a call.
  { name: 'POST /outbound-calls', method: 'POST', rest: 'outbound-calls', body: '{}' },
];

describe('the API guard decides from the route the router matched, not from the URL as sent', () => {
  let t: TestApp;
  let key: string;
  const canonical = new Map<string, RawResponse>();
  before(async () => {
    t = await startTestApp();
    key = (await newCustomer(t, { keyRateLimitPerMinute: 600, rateLimitPerMinute: 600 })).key;
    for (const route of ROUTES) {
      canonical.set(
        route.name,
        await send(t, route.method, `/api/v1/${route.rest}`, { key, body: route.body }),
      );
    }
  });
  after(() => t.close());

  it('the canonical answers with a key are the handlers’ own', () => {
    assert.equal(canonical.get('GET /auth/whoami')?.status, 200);
    assert.equal(canonical.get('GET /calls')?.status, 200);
    assert.equal(canonical.get('POST /outbound-calls')?.body.code, 'input.invalid');
  });

  for (const [spelling, spell, kind] of SPELLINGS) {
    for (const route of ROUTES) {
      const path = spell(route.rest);
      it(`${route.name} as ${path} (${spelling}): ${kind}`, async () => {
        const anonymous = await send(t, route.method, path, { body: route.body });
        const keyed = await send(t, route.method, path, { key, body: route.body });
        if (kind === 'not-api') {
          assertProblem(anonymous, 404, 'route.not_found', FAILURE_WINDOW);
          assertProblem(keyed, 404, 'route.not_found', FAILURE_WINDOW);
          return;
        }
        assertProblem(anonymous, 401, 'auth.missing', FAILURE_WINDOW);
        if (kind === 'api-unknown') {
          assertProblem(keyed, 404, 'route.not_found', '600');
          return;
        }
        const expected = canonical.get(route.name);
        assert.equal(keyed.status, expected?.status, keyed.text);
        assert.equal(keyed.body.code, expected?.body.code);
        assert.equal(keyed.headers['x-ratelimit-limit'], '600', 'counted in the key’s window');
      });
    }
  }
});

describe('every check of the guard applies through an encoded prefix', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('scope: a key without read_calls gets 403 perm.denied, one with it gets 200', async () => {
    const without = await newCustomer(t, { scopes: [] });
    const withScope = await newCustomer(t, { scopes: ['read_calls'] });
    assertProblem(
      await send(t, 'GET', '/%61pi/v1/calls', { key: without.key }),
      403,
      'perm.denied',
      KEY_WINDOW,
    );
    assert.equal((await send(t, 'GET', '/%61pi/v1/calls', { key: withScope.key })).status, 200);
  });

  it('content type: a POST without application/json gets 415, with it reaches validation (422)', async () => {
    const { key } = await newCustomer(t);
    const headers = ['Content-Type: text/plain'];
    const refused = await send(t, 'POST', '/%61pi/v1/outbound-calls', { key, headers, body: '{}' });
    assertProblem(refused, 415, 'input.unsupported_media_type', KEY_WINDOW);
    const accepted = await send(t, 'POST', '/%61pi/v1/outbound-calls', { key, body: '{}' });
    assertProblem(accepted, 422, 'input.invalid', KEY_WINDOW);
  });

  it('key in the URL: refused in the query and in a fragment, even with a valid header', async () => {
    const { key } = await newCustomer(t);
    for (const path of [`/%61pi/v1/auth/whoami?api_key=${key}`, `/%61pi/v1/auth/whoami#${key}`]) {
      const res = await send(t, 'GET', path, { key });
      assert.equal(res.status, 401, path);
      assert.equal(res.body.code, 'auth.invalid');
      assert.match(res.body.detail, /URL/);
    }
    assert.equal((await send(t, 'GET', '/%61pi/v1/auth/whoami?x#y', { key })).status, 422, 'no key: allowed');
  });

  it('the key’s window: the request over its ceiling gets 429 rate.exceeded_key', async () => {
    const { key } = await newCustomer(t, { keyRateLimitPerMinute: 2, rateLimitPerMinute: 600 });
    assert.equal((await send(t, 'GET', '/%61pi/v1/auth/whoami', { key })).status, 200);
    assert.equal((await send(t, 'GET', '/api/%761/auth/whoami', { key })).status, 200);
    const over = await send(t, 'GET', '/%61pi/v1/auth/whoami', { key });
    assert.equal(over.status, 429);
    assert.equal(over.body.code, 'rate.exceeded_key');
    assert.equal(over.headers['x-ratelimit-remaining'], '0');
  });
});

describe('failed authentications through an encoded prefix are logged, recorded and throttled', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ authFailuresPerMinutePerIp: 2 });
  });
  after(() => t.close());

  it('two failures fill the address window; the third request is refused before any lookup', async () => {
    const localAddress = '127.0.0.77';
    for (const path of ['/%61pi/v1/auth/whoami', '/api/%761/nope']) {
      assertProblem(await send(t, 'GET', path, { localAddress }), 401, 'auth.missing', '2');
    }
    const throttled = await send(t, 'GET', '/%61pi/v1/calls', { localAddress });
    assert.equal(throttled.status, 429);
    assert.equal(throttled.body.code, 'auth.throttled');
    const recorded = await t.db
      .selectFrom('auth_failures')
      .select('reason')
      .where('ip', '=', localAddress)
      .execute();
    assert.deepEqual(
      recorded.map((r) => r.reason),
      ['auth.missing', 'auth.missing'],
    );
    const logged = t.logs.filter((l) => l.includes('authentication failed') && l.includes(localAddress));
    assert.equal(logged.length, 2);
  });
});
