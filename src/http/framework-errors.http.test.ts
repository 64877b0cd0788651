import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RawResponse, rawRequest } from '../testing/raw-tls.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { STRICT_TRANSPORT_SECURITY } from './tls.ts';

const UUID_RE = /^[0-9a-f-]{36}$/;

function assertParserProblem(res: RawResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
  assert.equal(res.body.type, 'about:blank');
  assert.equal(res.body.status, status);
  assert.equal(res.body.code, code);
  assert.equal(typeof res.body.title, 'string');
  assert.equal(typeof res.body.detail, 'string');
  assert.match(res.body.request_id, UUID_RE);
  assert.equal(res.headers['x-request-id'], res.body.request_id);
  assert.equal(res.headers['strict-transport-security'], STRICT_TRANSPORT_SECURITY);
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.equal(res.headers['x-content-type-options'], 'nosniff');
  assert.equal(res.headers.connection, 'close');
}

/** URLs the router refuses before any route or hook runs; found by the reliability suite's fuzzing. */
describe('URLs the router cannot take', () => {
  let t: TestApp;
  let key: string;
  before(async () => {
    t = await startTestApp();
    key = (await newCustomer(t)).key;
  });
  after(() => t.close());

  it('a malformed percent-encoding in the path: 400 input.malformed as problem details with the request id', async () => {
    const res = await t.request('GET', '/api/v1/calls/%E0%A4%A', { key });
    assert.equal(res.status, 400);
    assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(res.body.type, 'about:blank');
    assert.equal(res.body.code, 'input.malformed');
    assert.equal(res.body.status, 400);
    assert.match(res.body.request_id, /^[0-9a-f-]{36}$/);
    assert.equal(res.headers['x-request-id'], res.body.request_id);
    assert.equal(res.headers['strict-transport-security'], STRICT_TRANSPORT_SECURITY);
  });

  // Found by the reliability suite's fuzzing: past the router's default 100 characters a segment was refused
  // before the guard, so a bad key got 400 instead of 401 (docs/spec-decisions.md, "Order of checks").
  for (const length of [101, 5_000, 15_000]) {
    it(`a path segment of ${length} characters is routed: 401 without a valid key, 422 with one`, async () => {
      const path = `/api/v1/calls/${'a'.repeat(length)}`;
      const missing = await t.request('GET', path);
      assert.equal(missing.status, 401, missing.text);
      assert.equal(missing.body.code, 'auth.missing');
      const invalid = await t.request('GET', path, { headers: { authorization: 'Bearer nope' } });
      assert.equal(invalid.body.code, 'auth.invalid', invalid.text);
      const keyed = await t.request('GET', path, { key });
      assert.equal(keyed.status, 422, keyed.text);
      assert.deepEqual(keyed.body.issues, [{ path: ['path', 'id'], message: 'Must be a UUID.' }]);
    });
  }
});

/** What Node's HTTP parser refuses before Fastify sees a request, sent byte for byte over TLS. */
describe('requests the HTTP parser cannot take', () => {
  let t: TestApp;
  let key: string;
  before(async () => {
    t = await startTestApp();
    key = (await newCustomer(t)).key;
  });
  after(() => t.close());

  const send = (requestLine: string, headers: string[] = [], body?: string) =>
    rawRequest(
      t.url,
      t.cert,
      [requestLine, 'Host: localhost', 'Connection: close', `Authorization: Bearer ${key}`, ...headers].join(
        '\r\n',
      ),
      { body },
    );
  const WHOAMI = 'GET /api/v1/auth/whoami HTTP/1.1';
  const POST = 'POST /api/v1/outbound-calls?dry_run=true HTTP/1.1';

  const refused: [string, () => Promise<RawResponse>, number, string][] = [
    [
      'a header over the size limit',
      () => send(WHOAMI, [`X-Big: ${'a'.repeat(20_000)}`]),
      431,
      'input.headers_too_large',
    ],
    [
      'headers over the size limit in all',
      () =>
        send(
          WHOAMI,
          Array.from({ length: 2_000 }, (_, i) => `X-H${i}: value`),
        ),
      431,
      'input.headers_too_large',
    ],
    ['a control character in a header value', () => send(WHOAMI, ['X-Note: a\x01b']), 400, 'input.malformed'],
    ['a NUL in a header value', () => send(WHOAMI, ['X-Note: a\x00b']), 400, 'input.malformed'],
    ['a control character in a header name', () => send(WHOAMI, ['X-No\x01te: ab']), 400, 'input.malformed'],
    [
      'Content-Length together with Transfer-Encoding',
      () =>
        send(
          POST,
          ['Content-Type: application/json', 'Content-Length: 2', 'Transfer-Encoding: chunked'],
          '2\r\n{}\r\n0\r\n\r\n',
        ),
      400,
      'input.malformed',
    ],
    [
      'two different Content-Length headers',
      () => send(POST, ['Content-Type: application/json', 'Content-Length: 2', 'Content-Length: 3'], '{}'),
      400,
      'input.malformed',
    ],
    [
      'a control character in the path',
      () => send('GET /api/v1/auth/who\x01ami HTTP/1.1'),
      400,
      'input.malformed',
    ],
    ['DEL in the path', () => send('GET /api/v1/auth/who\x7fami HTTP/1.1'), 400, 'input.malformed'],
    [
      'an unencoded non-ASCII byte in the path',
      () => send('GET /api/v1/calls/\xe9 HTTP/1.1'),
      400,
      'input.malformed',
    ],
    ['a space in the path', () => send('GET /api/v1/auth/who ami HTTP/1.1'), 400, 'input.malformed'],
    ['an unknown HTTP version', () => send('GET /api/v1/auth/whoami HTTP/9.9'), 400, 'input.malformed'],
  ];
  for (const [what, request, status, code] of refused) {
    it(`${what}: ${status} ${code} as problem details, logged with the request id`, async () => {
      const res = await request();
      assertParserProblem(res, status, code);
      assert.ok(
        t.logs.some((l) => l.includes('refused by the HTTP parser') && l.includes(res.body.request_id)),
        'the request id leads to a log line',
      );
    });
  }

  // The other direction: what is close to each refusal but valid is served as usual.
  const allowed: [string, () => Promise<RawResponse>, number][] = [
    ['a large header under the limit', () => send(WHOAMI, [`X-Big: ${'a'.repeat(8_000)}`]), 200],
    ['a tab and non-ASCII text in a header value', () => send(WHOAMI, ['X-Note: a\tb \xe9']), 200],
    [
      'Transfer-Encoding alone',
      () =>
        send(POST, ['Content-Type: application/json', 'Transfer-Encoding: chunked'], '2\r\n{}\r\n0\r\n\r\n'),
      422,
    ],
    [
      'Content-Length alone',
      () => send(POST, ['Content-Type: application/json', 'Content-Length: 2'], '{}'),
      422,
    ],
    ['a percent-encoded non-ASCII byte in the path', () => send('GET /api/v1/calls/%C3%A9 HTTP/1.1'), 422],
  ];
  for (const [what, request, status] of allowed) {
    it(`${what}: served (${status})`, async () => {
      const res = await request();
      assert.equal(res.status, status, res.text);
      assert.equal(res.headers['x-ratelimit-limit'], '60', 'authenticated with the key');
    });
  }

  // What Node answered by itself before (a bare 400, a closed connection): problems with a request id now.
  const sendAs = (requestLine: string, headers: string[]) =>
    rawRequest(t.url, t.cert, [requestLine, 'Connection: close', ...headers].join('\r\n'));
  const auth = () => `Authorization: Bearer ${key}`;

  it('an HTTP/1.1 request without Host: 400 input.malformed as problem details, logged with the request id', async () => {
    for (const path of ['/api/v1/auth/whoami', '/healthz', '/nope']) {
      const res = await sendAs(`GET ${path} HTTP/1.1`, [auth()]);
      assertParserProblem(res, 400, 'input.malformed');
      assert.match(res.body.detail, /Host/);
      assert.ok(
        t.logs.some((l) => l.includes(res.body.request_id)),
        'the request id leads to a log line',
      );
    }
  });

  it('a dashboard page without Host: the 400 is its HTML error page, with the request id and HSTS', async () => {
    const res = await sendAs('GET /dashboard/login HTTP/1.1', []);
    assert.equal(res.status, 400, res.text);
    assert.match(res.headers['content-type'] ?? '', /^text\/html/);
    assert.match(res.headers['x-request-id'] ?? '', UUID_RE);
    assert.equal(res.headers['strict-transport-security'], STRICT_TRANSPORT_SECURITY);
    assert.match(res.text, /Host header/);
  });

  it('with Host, or over HTTP/1.0 (which has no Host requirement), the request is served', async () => {
    const withHost = await sendAs('GET /api/v1/auth/whoami HTTP/1.1', ['Host: localhost', auth()]);
    assert.equal(withHost.status, 200, withHost.text);
    const http10 = await sendAs('GET /api/v1/auth/whoami HTTP/1.0', [auth()]);
    assert.equal(http10.status, 200, http10.text);
  });

  it('CONNECT: 405 route.method_not_allowed as problem details with an empty Allow, logged, instead of a closed connection', async () => {
    const res = await sendAs('CONNECT example.com:443 HTTP/1.1', ['Host: example.com:443']);
    assertParserProblem(res, 405, 'route.method_not_allowed');
    assert.equal(res.headers.allow, '', 'no method is allowed on a host');
    assert.ok(
      t.logs.some((l) => l.includes('CONNECT request refused') && l.includes(res.body.request_id)),
      'the request id leads to a log line',
    );
  });

  it('the other methods on the same server are still routed: OPTIONS and TRACE get 404 or 405 as before', async () => {
    const options = await sendAs('OPTIONS /api/v1/auth/whoami HTTP/1.1', ['Host: localhost', auth()]);
    assert.equal(options.status, 405, options.text);
    assert.equal(options.body.code, 'route.method_not_allowed');
    assert.match(options.headers.allow ?? '', /GET/);
  });
});
