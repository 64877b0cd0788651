import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect as tlsConnect } from 'node:tls';
import fc from 'fast-check';
import { newAssistant } from '../src/testing/outbound.fixtures.ts';
import { newCustomer, startTestApp, type TestApp, type TestResponse } from '../src/testing/test-app.ts';
import { callFor, emitEvent } from '../src/testing/webhook.fixtures.ts';
import { figure, rememberSecret, saveLogs } from './lib/collector.ts';
import { SERVER_SECRET } from './lib/env.ts';
import { codeOf, problemDefect } from './lib/problem.ts';
import { appRoutes, type RouteId } from './lib/routes.ts';

const SECTION = 'Bad input (property-based, fast-check)';
const RUNS_PER_ROUTE = Number(process.env.RELIABILITY_RUNS_PER_ROUTE ?? 60);
const SEED = Number(process.env.RELIABILITY_SEED ?? Date.now() % 2_147_483_647);
const BODY_LIMIT = 64 * 1024;

type Resources = {
  customerId: string;
  key: string;
  assistantId: string;
  callId: string;
  outboundCallId: string;
  eventId: string;
  subscriptionId: string;
};

type Case = {
  path: string;
  auth: { kind: 'valid' | 'none' | 'invalid'; header?: string };
  contentType: string | null;
  body: { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'raw'; text: string };
  extraHeaders: Record<string, string>;
};

/** Strings that have broken parsers before: unicode of every plane, controls, encodings, huge numbers. */
const nasty = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1e309',
    '99999999999999999999999',
    'NaN',
    'null',
    'true',
    '[]',
    '{}',
    '%00',
    '\u0000',
    '../../etc/passwd',
    "' or 1=1 --",
    '<script>alert(1)</script>',
    '𝕏'.repeat(50),
    'é'.normalize('NFD'),
    '\ud800',
    'a'.repeat(5000),
    '2026-02-30T25:61:61Z',
    '2026-11-21T10:00:00',
    `svc_live_${'A'.repeat(36)}`,
  ),
);

const QUERY_NAMES = [
  'id',
  'limit',
  'offset',
  'page',
  'cursor',
  'direction',
  'assistant_id',
  'from',
  'to',
  'type',
  'call_id',
  'challenge',
  'dry_run',
  'since',
];

describe('malformed requests to every endpoint', () => {
  let t: TestApp;
  let routes: RouteId[];
  /** POST actions that take no body: they accept none, whatever its type (docs/spec-decisions.md, issue 34). */
  let bodyless: Set<string>;
  let me: Resources;
  let victim: Resources;
  const tally = { cases: 0, byStatus: new Map<number, number>() };

  async function resources(): Promise<Resources> {
    const c = await newCustomer(t, { rateLimitPerMinute: 600, keyRateLimitPerMinute: 600 });
    rememberSecret('api_key', c.key);
    const assistant = await newAssistant(t, c.customerId);
    const { callId } = await callFor(t, c.customerId);
    const placed = await t.request('POST', '/api/v1/outbound-calls', {
      key: c.key,
      body: { assistant_id: assistant.id, to_number: '+14155550199' },
    });
    assert.equal(placed.status, 201, placed.text);
    const sub = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: c.key,
      body: { url: `https://hooks.example.com/${c.customerId}`, events: ['call.completed'] },
    });
    assert.equal(sub.status, 201, sub.text);
    rememberSecret('webhook_secret', sub.body.secret);
    const event = await emitEvent(t, c.customerId, callId);
    return {
      customerId: c.customerId,
      key: c.key,
      assistantId: assistant.id,
      callId,
      outboundCallId: placed.body.id,
      eventId: event.id,
      subscriptionId: sub.body.id,
    };
  }

  before(async () => {
    // Responses are checked here against spec 7 (problemDefect), not against the OpenAPI document, which
    // need not list every malformed-input answer; the scope matrix keeps that check on.
    t = await startTestApp({
      serverSecret: SERVER_SECRET,
      webhooks: { maxPerCustomer: 1000 },
      checkResponses: false,
    });
    routes = appRoutes(t.app).filter((r) => r.split(' ')[1]?.startsWith('/api/v1'));
    bodyless = new Set(t.routes.filter((r) => r.config?.bodyOptional).map((r) => `POST ${r.url}`));
    me = await resources();
    victim = await resources();
  });
  after(async () => {
    saveLogs('bad-input-testapp', t.logs);
    await t.close();
  });

  /** Rows a request could add or remove for the caller; a rejected request must leave them all as they were. */
  async function snapshot(customerId: string): Promise<string> {
    const count = async (table: 'calls' | 'events' | 'webhook_deliveries' | 'spend_reservations') =>
      Number(
        (
          await t.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('customer_id', '=', customerId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const subs = await t.db
      .selectFrom('webhook_subscriptions')
      .select(['id', 'deleted_at', 'secret_encrypted'])
      .where('customer_id', '=', customerId)
      .orderBy('id')
      .execute();
    return JSON.stringify([
      await count('calls'),
      await count('events'),
      await count('webhook_deliveries'),
      await count('spend_reservations'),
      subs.map((s) => [s.id, s.deleted_at?.toISOString() ?? null, s.secret_encrypted]),
    ]);
  }

  const idArb = () =>
    fc.oneof(
      fc.constantFrom(
        me.callId,
        me.outboundCallId,
        me.subscriptionId,
        me.eventId,
        victim.callId,
        victim.outboundCallId,
        victim.subscriptionId,
        victim.eventId,
        me.callId.toUpperCase(),
        `sub_${'0'.repeat(24)}`,
        '00000000-0000-0000-0000-000000000000',
      ),
      fc.uuid(),
      nasty,
    );

  const encode = (s: string) => {
    try {
      return encodeURIComponent(s);
    } catch {
      // A lone surrogate cannot be percent-encoded as UTF-8: send its replacement as a client would.
      return encodeURIComponent(s.toWellFormed());
    }
  };

  function caseArb(route: RouteId): fc.Arbitrary<Case> {
    const [method = 'GET', pattern = ''] = route.split(' ');
    const path = fc
      .tuple(
        idArb(),
        fc.array(fc.tuple(fc.oneof(fc.constantFrom(...QUERY_NAMES), nasty), nasty), { maxLength: 4 }),
      )
      .map(([id, query]) => {
        const p = pattern.replace(':id', encode(id));
        const q = query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
        return q ? `${p}?${q}` : p;
      });
    const auth = fc.oneof(
      { weight: 10, arbitrary: fc.constant<Case['auth']>({ kind: 'valid' }) },
      { weight: 1, arbitrary: fc.constant<Case['auth']>({ kind: 'none' }) },
      {
        weight: 2,
        arbitrary: fc
          .oneof(
            fc.constant('Bearer'),
            fc.constant('Bearer '),
            fc.constant(`Basic ${Buffer.from('a:b').toString('base64')}`),
            fc.constant(`Bearer svc_test_${'A'.repeat(36)}`),
            fc.constant(`Bearer ${me.key.slice(0, -1)}${me.key.endsWith('A') ? 'B' : 'A'}`),
            fc.constant(`Bearer ${me.key} ${me.key}`),
            fc.constant(`Token ${me.key}`),
            fc.constant(`Bearer ${me.key}x`),
            nasty.map((s) => `Bearer ${s.replace(/[^\x21-\x7e]/g, 'x')}`),
          )
          .map((header): Case['auth'] => ({ kind: 'invalid', header })),
      },
    );
    const contentType = fc.oneof(
      { weight: 5, arbitrary: fc.constant('application/json') },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          null,
          'application/json; charset=utf-8',
          'APPLICATION/JSON',
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/json-patch+json',
          'multipart/form-data; boundary=x',
        ),
      },
    );
    const shaped = fc.record(
      {
        url: fc.oneof(nasty, fc.webUrl(), fc.jsonValue()),
        events: fc.oneof(
          fc.array(fc.oneof(nasty, fc.constantFrom('call.completed', 'sms.sent'))),
          fc.jsonValue(),
        ),
        description: fc.oneof(nasty, fc.jsonValue()),
        assistant_id: fc.oneof(
          fc.constantFrom(me.assistantId, victim.assistantId),
          fc.uuid(),
          fc.jsonValue(),
        ),
        to_number: fc.oneof(
          fc.constantFrom('+14155550199', '+442071838750', '+1900555'),
          nasty,
          fc.jsonValue(),
        ),
        callback_url: fc.oneof(nasty, fc.webUrl()),
        metadata: fc.jsonValue(),
        external_id: fc.oneof(nasty, fc.jsonValue()),
        variables: fc.jsonValue(),
        since: fc.oneof(
          nasty,
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        ),
        subscription_id: fc.oneof(fc.constantFrom(victim.subscriptionId, me.subscriptionId), nasty),
      },
      { requiredKeys: [] },
    );
    const body: fc.Arbitrary<Case['body']> =
      method === 'POST' || method === 'DELETE'
        ? fc.oneof(
            { weight: 4, arbitrary: shaped.map((value): Case['body'] => ({ kind: 'json', value })) },
            { weight: 2, arbitrary: fc.jsonValue().map((value): Case['body'] => ({ kind: 'json', value })) },
            {
              weight: 1,
              arbitrary: fc
                .oneof(
                  fc.string({ unit: 'binary', maxLength: 60 }),
                  fc.constantFrom(
                    '{',
                    '{"url":',
                    '[1,2',
                    '{"a":1}}',
                    'null',
                    '',
                    '\u0000',
                    '{"__proto__":{"x":1}}',
                  ),
                  fc.constant(`{"description":"${'x'.repeat(BODY_LIMIT)}"}`),
                )
                .map((text): Case['body'] => ({ kind: 'raw', text })),
            },
            { weight: 1, arbitrary: fc.constant<Case['body']>({ kind: 'none' }) },
          )
        : fc.oneof(
            { weight: 5, arbitrary: fc.constant<Case['body']>({ kind: 'none' }) },
            { weight: 1, arbitrary: fc.jsonValue().map((value): Case['body'] => ({ kind: 'json', value })) },
          );
    const extraHeaders: fc.Arbitrary<Record<string, string>> = fc.oneof(
      { weight: 4, arbitrary: fc.constant<Record<string, string>>({}) },
      {
        weight: 1,
        arbitrary: fc.constantFrom<Record<string, string>>(
          { 'x-request-id': 'forged' },
          { 'idempotency-key': 'k'.repeat(300) },
          { 'idempotency-key': '' },
          { 'x-forwarded-proto': 'http' },
          { 'x-forwarded-for': '10.0.0.1' },
          { accept: 'text/html' },
          { 'accept-encoding': 'gzip, br' },
        ),
      },
    );
    return fc.record({ path, auth, contentType, body, extraHeaders });
  }

  /** The code a request must get whatever else is wrong with it, when the oracle can tell. */
  function mustBe(route: RouteId, c: Case, res: TestResponse): string | null {
    const [method = 'GET', pattern = ''] = route.split(' ');
    const isPublic = pattern === '/api/v1/openapi.json';
    const probe =
      method === 'POST' && pattern === '/api/v1/webhook-subscriptions' && /[?&]challenge=/.test(c.path);
    if (isPublic || probe) return null;
    const query = c.path.includes('?')
      ? decodeURIComponent(c.path.slice(c.path.indexOf('?') + 1).replace(/\+/g, ' '))
      : '';
    if (query.includes('svc_live_') || query.includes('svc_test_'))
      return res.status === 401 && codeOf(res.body) === 'auth.invalid'
        ? null
        : 'a key in the URL must be auth.invalid';
    if (c.auth.kind === 'none')
      return codeOf(res.body) === 'auth.missing' ? null : 'no Authorization must be auth.missing';
    if (c.auth.kind === 'invalid')
      return codeOf(res.body) === 'auth.invalid' ? null : `bad Authorization must be auth.invalid`;
    if (res.status === 429) return null;
    const noBody = c.body.kind === 'none' || (c.body.kind === 'raw' && c.body.text === '');
    if (method === 'POST' && noBody && bodyless.has(route)) return null;
    if (method === 'POST' && !/^application\/json\s*(;|$)/i.test(c.contentType ?? ''))
      return codeOf(res.body) === 'input.unsupported_media_type' ? null : 'POST without JSON must be 415';
    return null;
  }

  const leaks = (text: string, request: string) =>
    [
      victim.customerId,
      victim.assistantId,
      victim.callId,
      victim.outboundCallId,
      victim.subscriptionId,
      victim.eventId,
    ].filter((id) => text.includes(id) && !request.includes(id));

  it(`${RUNS_PER_ROUTE} random and malformed requests per route: never a 500, always a valid problem, nothing stored, nothing leaked (seed ${SEED})`, async () => {
    assert.ok(routes.length >= 10, `routes: ${routes.join(', ')}`);
    for (const route of routes) {
      const [method = 'GET'] = route.split(' ');
      await fc.assert(
        fc.asyncProperty(caseArb(route), async (c) => {
          // One second per request keeps every rate window far from full (60 a minute at most).
          t.clock.advance(1_000);
          const before = await snapshot(me.customerId);
          const headers: Record<string, string> = { ...c.extraHeaders };
          if (c.auth.kind === 'valid') headers.authorization = `Bearer ${me.key}`;
          if (c.auth.kind === 'invalid' && c.auth.header !== undefined) headers.authorization = c.auth.header;
          if (c.contentType !== null && c.body.kind !== 'none') headers['content-type'] = c.contentType;
          const rawBody =
            c.body.kind === 'json'
              ? (JSON.stringify(c.body.value) ?? 'null')
              : c.body.kind === 'raw'
                ? c.body.text
                : undefined;
          const res = await t.request(method, c.path, {
            headers,
            ...(rawBody !== undefined ? { rawBody } : {}),
          });
          tally.cases += 1;
          tally.byStatus.set(res.status, (tally.byStatus.get(res.status) ?? 0) + 1);
          const where = `${route} ${c.path.slice(0, 200)} → ${res.status} ${res.text.slice(0, 300)}`;
          assert.ok(res.status < 500, `server error: ${where}`);
          if (res.status >= 400) {
            const defect = problemDefect(res);
            assert.equal(defect, null, `${defect}: ${where}`);
            assert.equal(
              await snapshot(me.customerId),
              before,
              `a rejected request changed stored data: ${where}`,
            );
          }
          const wrong = mustBe(route, c, res);
          assert.equal(wrong, null, `${wrong}: ${where}`);
          assert.deepEqual(
            leaks(res.text, c.path + (rawBody ?? '')),
            [],
            `another customer's data: ${where}`,
          );
        }),
        { numRuns: RUNS_PER_ROUTE, seed: SEED, endOnFailure: true },
      );
    }
    figure({ section: SECTION, name: 'routes under /api/v1', value: routes.length });
    figure({ section: SECTION, name: 'random requests (fast-check)', value: tally.cases });
    figure({
      section: SECTION,
      name: 'answers by status',
      value: [...tally.byStatus]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${s}×${n}`)
        .join(' '),
    });
    figure({
      section: SECTION,
      name: '5xx answers',
      value: [...tally.byStatus].filter(([s]) => s >= 500).length,
      bound: '= 0',
      ok: true,
    });
    figure({ section: SECTION, name: 'seed', value: SEED });
  });

  /** One request written byte by byte on a TLS socket; returns what came back within `waitMs`. */
  function raw(request: string, waitMs: number): Promise<string> {
    const url = new URL(t.url);
    return new Promise((resolve) => {
      const socket = tlsConnect(
        { host: url.hostname, port: Number(url.port), ca: t.cert, servername: 'localhost' },
        () => socket.end(request),
      );
      let data = '';
      socket.on('data', (d: Buffer) => {
        data += d.toString('utf8');
      });
      const done = () => resolve(data);
      socket.on('close', done);
      socket.on('error', done);
      socket.setTimeout(waitMs, () => socket.destroy());
    });
  }

  it('Content-Length that does not match the body, and other framing faults: never a 500, the service keeps serving', async () => {
    const body = JSON.stringify({ url: 'https://hooks.example.com/cl', events: ['call.completed'] });
    const head = (extra: string) =>
      `POST /api/v1/webhook-subscriptions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${me.key}\r\nContent-Type: application/json\r\n${extra}Connection: close\r\n\r\n`;
    const deltas = fc.sample(fc.integer({ min: -body.length, max: 200 }), { numRuns: 20, seed: SEED });
    const outcomes: string[] = [];
    const before = await snapshot(me.customerId);
    for (const delta of [...new Set([-1, -10, 1, 50, ...deltas])].filter((d) => d !== 0)) {
      t.clock.advance(1_000);
      const reply = await raw(`${head(`Content-Length: ${body.length + delta}\r\n`)}${body}`, 1_500);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1] ?? 0);
      outcomes.push(`${delta}:${status}`);
      assert.ok(
        status === 0 || (status >= 400 && status < 500),
        `Content-Length ${delta}: ${reply.slice(0, 200)}`,
      );
      if (status >= 400 && /application\/problem\+json/.test(reply)) {
        const json = reply.slice(reply.indexOf('\r\n\r\n') + 4);
        assert.match(json, /"code":"input\.(malformed|invalid)"/, reply);
      }
    }
    for (const framing of [
      head('Content-Length: abc\r\n') + body,
      head(`Content-Length: ${body.length}\r\nContent-Length: ${body.length + 1}\r\n`) + body,
      head(`Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n`) + body,
      `${head('Transfer-Encoding: chunked\r\n')}zz\r\n${body}\r\n0\r\n\r\n`,
    ]) {
      const reply = await raw(framing, 1_500);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1] ?? 0);
      outcomes.push(`framing:${status}`);
      assert.ok(status === 0 || (status >= 400 && status < 500), reply.slice(0, 200));
    }
    assert.equal(
      await snapshot(me.customerId),
      before,
      'no subscription was made from a truncated or padded body',
    );
    const alive = await t.request('GET', '/api/v1/auth/whoami', { key: me.key });
    assert.equal(alive.status, 200, 'still serving');
    figure({ section: SECTION, name: 'Content-Length / framing faults sent raw', value: outcomes.length });
    figure({
      section: SECTION,
      name: 'raw outcomes (delta:status, 0 = closed without answer)',
      value: outcomes.join(' '),
    });
  });
});
