import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SCOPES, type Scope } from '../src/keys/scopes.ts';
import { newAssistant } from '../src/testing/outbound.fixtures.ts';
import { newCustomer, startTestApp, type TestApp, type TestResponse } from '../src/testing/test-app.ts';
import { callFor, emitEvent } from '../src/testing/webhook.fixtures.ts';
import { figure, rememberSecret, saveLogs } from './lib/collector.ts';
import { SERVER_SECRET } from './lib/env.ts';
import { codeOf, problemDefect } from './lib/problem.ts';
import { appRoutes, type RouteId } from './lib/routes.ts';

const SECTION = 'Security: route × scope matrix';

/** What a customer owns, made fresh for each request that consumes something (a delete, a subscription). */
type World = {
  customerId: string;
  assistantId: string;
  callId: string;
  outboundCallId: string;
  eventId: string;
  subscriptionId: string;
  messageId: string;
  newSubscription(): Promise<string>;
  /** A finished call of its own, for a delete that goes through. */
  newCall(): Promise<string>;
  /** A test-mode key of the customer with every scope (the routes of test mode answer test keys only). */
  testKey: string;
};

type Req = { path: string; body?: unknown };

/**
 * Spec 5.3 (and section 4), route by route: the scope it needs ('none': any valid key; 'public': no key at
 * all), a well-formed request about the caller's own resources, the documented success status, and the same
 * request pointed at another customer's resource where the route takes an id.
 */
const TABLE: Record<
  RouteId,
  {
    scope: Scope | 'none' | 'public';
    ok: number;
    /** A route of test mode: asked with a test key (a live one is refused whatever its scopes). */
    testMode?: true;
    own?: (w: World) => Promise<Req> | Req;
    other?: (w: World) => Promise<Req> | Req;
  }
> = {
  'GET /api/v1/auth/whoami': { scope: 'none', ok: 200, own: () => ({ path: '/api/v1/auth/whoami' }) },
  'GET /api/v1/openapi.json': { scope: 'public', ok: 200, own: () => ({ path: '/api/v1/openapi.json' }) },
  'GET /api/v1/assistants': {
    scope: 'read_assistants',
    ok: 200,
    own: () => ({ path: '/api/v1/assistants' }),
    other: (w) => ({ path: `/api/v1/assistants?id=${w.assistantId}` }),
  },
  'GET /api/v1/calls': { scope: 'read_calls', ok: 200, own: () => ({ path: '/api/v1/calls' }) },
  'GET /api/v1/calls/export': { scope: 'read_calls', ok: 200, own: () => ({ path: '/api/v1/calls/export' }) },
  'GET /api/v1/calls/:id': {
    scope: 'read_calls',
    ok: 200,
    own: (w) => ({ path: `/api/v1/calls/${w.callId}` }),
    other: (w) => ({ path: `/api/v1/calls/${w.callId}` }),
  },
  // `outbound_calls`, the one scope that writes calls: a read-only integration cannot destroy data.
  'DELETE /api/v1/calls/:id': {
    scope: 'outbound_calls',
    ok: 204,
    own: async (w) => ({ path: `/api/v1/calls/${await w.newCall()}` }),
    other: (w) => ({ path: `/api/v1/calls/${w.callId}` }),
  },
  'GET /api/v1/calls/:id/transcript': {
    scope: 'read_calls',
    // A placed call not yet answered: spec 3.2 "settling", 202 pending.
    ok: 202,
    own: (w) => ({ path: `/api/v1/calls/${w.outboundCallId}/transcript` }),
    other: (w) => ({ path: `/api/v1/calls/${w.outboundCallId}/transcript` }),
  },
  'GET /api/v1/outbound-calls/:id/transcript': {
    scope: 'read_analytics',
    ok: 202,
    own: (w) => ({ path: `/api/v1/outbound-calls/${w.outboundCallId}/transcript` }),
    other: (w) => ({ path: `/api/v1/outbound-calls/${w.outboundCallId}/transcript` }),
  },
  'POST /api/v1/outbound-calls': {
    scope: 'outbound_calls',
    ok: 201,
    own: (w) => ({
      path: '/api/v1/outbound-calls',
      body: { assistant_id: w.assistantId, to_number: '+14155550199' },
    }),
    other: (w) => ({
      path: '/api/v1/outbound-calls',
      body: { assistant_id: w.assistantId, to_number: '+14155550199' },
    }),
  },
  // Another customer's assistant is a failed check in the 200 (code resource.not_found, no from_number), not a 404.
  'POST /api/v1/outbound-calls/dry-run': {
    scope: 'outbound_calls',
    ok: 200,
    own: (w) => ({
      path: '/api/v1/outbound-calls/dry-run',
      body: { assistant_id: w.assistantId, to_number: '+14155550199' },
    }),
  },
  'POST /api/v1/webhook-subscriptions': {
    scope: 'manage_webhooks',
    ok: 201,
    own: () => ({
      path: '/api/v1/webhook-subscriptions',
      body: { url: `https://hooks.example.com/${crypto.randomUUID()}`, events: ['call.completed'] },
    }),
  },
  'GET /api/v1/webhook-subscriptions': {
    scope: 'manage_webhooks',
    ok: 200,
    own: () => ({ path: '/api/v1/webhook-subscriptions' }),
  },
  'DELETE /api/v1/webhook-subscriptions': {
    scope: 'manage_webhooks',
    ok: 200,
    own: async (w) => ({ path: `/api/v1/webhook-subscriptions?id=${await w.newSubscription()}` }),
    other: (w) => ({ path: `/api/v1/webhook-subscriptions?id=${w.subscriptionId}` }),
  },
  'GET /api/v1/webhook-subscriptions/:id': {
    scope: 'manage_webhooks',
    ok: 200,
    own: (w) => ({ path: `/api/v1/webhook-subscriptions/${w.subscriptionId}` }),
    other: (w) => ({ path: `/api/v1/webhook-subscriptions/${w.subscriptionId}` }),
  },
  'DELETE /api/v1/webhook-subscriptions/:id': {
    scope: 'manage_webhooks',
    ok: 200,
    own: async (w) => ({ path: `/api/v1/webhook-subscriptions/${await w.newSubscription()}` }),
    other: (w) => ({ path: `/api/v1/webhook-subscriptions/${w.subscriptionId}` }),
  },
  'POST /api/v1/webhook-subscriptions/:id/rotate-secret': {
    scope: 'manage_webhooks',
    ok: 200,
    own: (w) => ({ path: `/api/v1/webhook-subscriptions/${w.subscriptionId}/rotate-secret`, body: {} }),
    other: (w) => ({ path: `/api/v1/webhook-subscriptions/${w.subscriptionId}/rotate-secret`, body: {} }),
  },
  'POST /api/v1/webhook-subscriptions/:id/redeliver': {
    scope: 'manage_webhooks',
    ok: 202,
    own: (w) => ({
      path: `/api/v1/webhook-subscriptions/${w.subscriptionId}/redeliver`,
      body: { since: new Date(Date.now() - 3_600_000).toISOString() },
    }),
    other: (w) => ({
      path: `/api/v1/webhook-subscriptions/${w.subscriptionId}/redeliver`,
      body: { since: new Date(Date.now() - 3_600_000).toISOString() },
    }),
  },
  'GET /api/v1/webhook-events': {
    scope: 'manage_webhooks',
    ok: 200,
    own: () => ({ path: '/api/v1/webhook-events' }),
  },
  'POST /api/v1/webhook-events/:id/redeliver': {
    scope: 'manage_webhooks',
    ok: 202,
    own: (w) => ({ path: `/api/v1/webhook-events/${w.eventId}/redeliver`, body: {} }),
    other: (w) => ({ path: `/api/v1/webhook-events/${w.eventId}/redeliver`, body: {} }),
  },
  'POST /api/v1/sms/send': {
    scope: 'send_sms',
    ok: 201,
    own: (w) => ({
      path: '/api/v1/sms/send',
      body: { assistant_id: w.assistantId, to_number: '+14155550199', body: 'Hi' },
    }),
    other: (w) => ({
      path: '/api/v1/sms/send',
      body: { assistant_id: w.assistantId, to_number: '+14155550199', body: 'Hi' },
    }),
  },
  // As for calls: another customer's assistant is a failed check in the 200, not a 404.
  'POST /api/v1/sms/send/dry-run': {
    scope: 'send_sms',
    ok: 200,
    own: (w) => ({
      path: '/api/v1/sms/send/dry-run',
      body: { assistant_id: w.assistantId, to_number: '+14155550199', body: 'Hi' },
    }),
  },
  'GET /api/v1/sms/messages': { scope: 'send_sms', ok: 200, own: () => ({ path: '/api/v1/sms/messages' }) },
  'GET /api/v1/sms/messages/:id': {
    scope: 'send_sms',
    ok: 200,
    own: (w) => ({ path: `/api/v1/sms/messages/${w.messageId}` }),
    other: (w) => ({ path: `/api/v1/sms/messages/${w.messageId}` }),
  },
  // The number is looked for among the caller's own assistants only: another customer's is a 404 by construction.
  'POST /api/v1/test/inbound-sms': {
    scope: 'send_sms',
    ok: 201,
    testMode: true,
    own: () => ({ path: '/api/v1/test/inbound-sms', body: { to_number: '+14155550102', body: 'Hi' } }),
  },
  'POST /api/v1/test/inbound-calls': {
    scope: 'read_calls',
    ok: 201,
    testMode: true,
    own: (w) => ({ path: '/api/v1/test/inbound-calls', body: { assistant_id: w.assistantId } }),
    other: (w) => ({ path: '/api/v1/test/inbound-calls', body: { assistant_id: w.assistantId } }),
  },
};

/** Every subset of the scopes (2^6 = 64). */
const COMBINATIONS: Scope[][] = Array.from({ length: 1 << SCOPES.length }, (_, mask) =>
  SCOPES.filter((_, i) => mask & (1 << i)),
);

describe('every route × every scope combination', () => {
  let t: TestApp;
  let api: RouteId[];
  let world: World & { key: string };
  let stranger: World;

  async function makeWorld(): Promise<World & { key: string }> {
    const c = await newCustomer(t, { rateLimitPerMinute: 600, keyRateLimitPerMinute: 600 });
    rememberSecret('api_key', c.key);
    const assistant = await newAssistant(t, c.customerId);
    const { callId } = await callFor(t, c.customerId);
    const placed = await t.request('POST', '/api/v1/outbound-calls', {
      key: c.key,
      body: { assistant_id: assistant.id, to_number: '+14155550199' },
    });
    assert.equal(placed.status, 201, placed.text);
    const event = await emitEvent(t, c.customerId, callId);
    const message = await t.request('POST', '/api/v1/sms/send', {
      key: c.key,
      body: { assistant_id: assistant.id, to_number: '+14155550199', body: 'Hello' },
    });
    assert.equal(message.status, 201, message.text);
    const newSubscription = async () => {
      const res = await t.request('POST', '/api/v1/webhook-subscriptions', {
        key: c.key,
        body: { url: `https://hooks.example.com/${crypto.randomUUID()}`, events: ['call.completed'] },
      });
      assert.equal(res.status, 201, res.text);
      rememberSecret('webhook_secret', res.body.secret);
      return String(res.body.id);
    };
    const { secret: testKey } = await t.services.keys.createKey({
      customerId: c.customerId,
      name: 'test mode, every scope',
      scopes: SCOPES,
      mode: 'test',
    });
    rememberSecret('api_key', testKey);
    return {
      key: c.key,
      testKey,
      customerId: c.customerId,
      assistantId: assistant.id,
      callId,
      outboundCallId: placed.body.id,
      eventId: event.id,
      messageId: message.body.id,
      subscriptionId: await newSubscription(),
      newSubscription,
      newCall: async () => (await callFor(t, c.customerId)).callId,
    };
  }

  before(async () => {
    t = await startTestApp({ serverSecret: SERVER_SECRET, webhooks: { maxPerCustomer: 1000 } });
    api = appRoutes(t.app).filter((r) => r.split(' ')[1]?.startsWith('/api/v1'));
    world = await makeWorld();
    stranger = await makeWorld();
  });
  after(async () => {
    saveLogs('scope-matrix-testapp', t.logs);
    await t.close();
  });

  it('the table knows every /api/v1 route the app serves (a new route must be added to it)', () => {
    assert.ok(api.includes('GET /api/v1/auth/whoami'), `routes read from the app: ${api.join(', ')}`);
    const unknown = api.filter((r) => !(r in TABLE));
    const gone = Object.keys(TABLE).filter((r) => !api.includes(r as RouteId));
    figure({ section: SECTION, name: 'routes under /api/v1 (read from the app)', value: api.length });
    figure({
      section: SECTION,
      name: 'routes missing from the scope table',
      value: unknown.length ? unknown.join(', ') : 0,
      bound: '= 0',
      ok: unknown.length === 0,
    });
    assert.deepEqual(unknown, [], 'routes the scope table does not know');
    assert.deepEqual(gone, [], 'routes in the table the app no longer serves');
  });

  it('each route answers exactly as documented for each of the 64 scope sets', async () => {
    let checked = 0;
    const wrong: string[] = [];
    for (const scopes of COMBINATIONS) {
      const made = await Promise.all(
        (['live', 'test'] as const).map((mode) =>
          t.services.keys.createKey({
            customerId: world.customerId,
            name: `matrix ${mode} ${scopes.join('+') || 'none'}`,
            scopes,
            mode,
          }),
        ),
      );
      const [secret = '', testSecret = ''] = made.map((m) => m.secret);
      for (const s of [secret, testSecret]) rememberSecret('api_key', s);
      for (const route of api) {
        const row = TABLE[route];
        if (!row?.own) continue;
        const [method = 'GET'] = route.split(' ');
        const allowed = row.scope === 'none' || row.scope === 'public' || scopes.includes(row.scope);
        // A refused request must change nothing: build it, then check the resource it names is still there.
        const req = await row.own(world);
        const res: TestResponse = await t.request(method, req.path, {
          key: row.testMode ? testSecret : secret,
          ...(req.body !== undefined ? { body: req.body } : {}),
        });
        checked += 1;
        const expected = allowed ? `${row.ok}` : '403 perm.denied';
        const got = allowed ? `${res.status}` : `${res.status} ${codeOf(res.body)}`;
        if (got !== expected)
          wrong.push(
            `[${scopes.join(',') || '-'}] ${route}: ${got} (expected ${expected}) ${res.text.slice(0, 120)}`,
          );
        if (!allowed) {
          const defect = problemDefect(res);
          if (defect) wrong.push(`[${scopes.join(',') || '-'}] ${route}: ${defect}`);
          if (method === 'DELETE' && route.startsWith('DELETE /api/v1/calls/')) {
            const id = req.path.split('/').at(-1) ?? '';
            const still = await t.db.selectFrom('calls').select('id').where('id', '=', id).executeTakeFirst();
            if (!still) wrong.push(`${route}: a refused delete deleted`);
          } else if (method === 'DELETE') {
            const id = /sub_[0-9a-f]{24}/.exec(req.path)?.[0] ?? '';
            const still = await t.db
              .selectFrom('webhook_subscriptions')
              .select('deleted_at')
              .where('id', '=', id)
              .executeTakeFirst();
            if (still?.deleted_at !== null) wrong.push(`${route}: a refused delete deleted`);
          }
        }
      }
      // Each scope set in a window of its own (the per-customer window is 600 a minute).
      t.clock.advance(61_000);
    }
    figure({ section: SECTION, name: 'route × scope-set requests', value: checked });
    figure({
      section: SECTION,
      name: 'answers not as documented',
      value: wrong.length,
      bound: '= 0',
      ok: wrong.length === 0,
    });
    assert.deepEqual(wrong, []);
  });

  it("every route with another customer's id answers 404 and changes nothing", async () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const route of api) {
      const row = TABLE[route];
      if (!row?.other) continue;
      const [method = 'GET'] = route.split(' ');
      const req = await row.other(stranger);
      const res = await t.request(method, req.path, {
        key: row.testMode ? world.testKey : world.key,
        ...(req.body !== undefined ? { body: req.body } : {}),
      });
      checked += 1;
      if (res.status !== 404 || codeOf(res.body) !== 'resource.not_found')
        wrong.push(`${route}: ${res.status} ${codeOf(res.body)} ${res.text.slice(0, 150)}`);
      for (const id of [stranger.customerId, stranger.callId, stranger.assistantId, stranger.subscriptionId])
        if (res.text.includes(id) && !req.path.includes(id)) wrong.push(`${route}: leaks ${id}`);
    }
    const sub = await t.db
      .selectFrom('webhook_subscriptions')
      .select(['deleted_at', 'secret_encrypted'])
      .where('id', '=', stranger.subscriptionId)
      .executeTakeFirstOrThrow();
    if (sub.deleted_at !== null) wrong.push("another customer's subscription was deleted");
    const stored = await t.db
      .selectFrom('calls')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('customer_id', '=', stranger.customerId)
      .executeTakeFirstOrThrow();
    if (Number(stored.n) !== 2) wrong.push(`calls of the other customer changed: ${stored.n}`);
    figure({ section: SECTION, name: "routes tried with another customer's id", value: checked });
    figure({
      section: SECTION,
      name: 'of which not 404',
      value: wrong.length,
      bound: '= 0',
      ok: wrong.length === 0,
    });
    assert.ok(checked >= 10, `only ${checked} routes take an id`);
    assert.deepEqual(wrong, []);
  });
});
