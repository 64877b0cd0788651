import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SCOPES } from '../keys/scopes.ts';
import { signedIn } from '../testing/dashboard.fixtures.ts';
import { startFakeElevenLabs } from '../testing/fake-elevenlabs.ts';
import { advance, type Caller, newCaller, placeCall } from '../testing/outbound.fixtures.ts';
import { type Receiver, startReceiver } from '../testing/receiver.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';
import { testWorker } from '../testing/webhook.fixtures.ts';
import type { DeliveryWorker } from '../webhooks/delivery-worker.ts';

const SERVER_SECRET = 'test-mode-server-secret-0123456789abcdef';

/** A customer's live caller and a test-mode key of the same customer (same assistant). */
type Pair = { live: Caller; test: Caller };

async function pairOf(t: TestApp, o: { rateLimitPerMinute?: number } = {}): Promise<Pair> {
  const live = await newCaller(t, o);
  const { key, secret } = await t.services.keys.createKey({
    customerId: live.customerId,
    name: 'test mode',
    scopes: SCOPES,
    mode: 'test',
  });
  return { live, test: { ...live, keyId: key.id, key: secret } };
}

/**
 * Test mode (issue 37): a `svc_test_` key of a customer sees that customer's test data only, and a live key its
 * live data only; test calls go to the simulator, whatever PROVIDER says, and cost nothing.
 */
describe('test mode: svc_test_ keys', () => {
  let t: TestApp;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  let closeWorker: () => Promise<void>;
  const subscriptions: { key: string; id: string }[] = [];

  before(async () => {
    t = await startTestApp({ serverSecret: SERVER_SECRET, testMode: true });
    receiver = await startReceiver();
    ({ worker, close: closeWorker } = testWorker(t, SERVER_SECRET));
  });
  after(async () => {
    for (const { key, id } of subscriptions) {
      await t.request('DELETE', `/api/v1/webhook-subscriptions/${id}`, { key });
    }
    await closeWorker();
    await receiver.close();
    await t.close();
  });

  async function subscribe(c: Caller, path: string): Promise<{ id: string; livemode: boolean }> {
    const res = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: c.key,
      body: { url: `${receiver.url}/${path}`, events: ['call.completed'] },
    });
    assert.equal(res.status, 201, res.text);
    subscriptions.push({ key: c.key, id: res.body.id });
    return res.body;
  }

  it('whoami says test, with the customer it belongs to; the assistants are the customer’s own', async () => {
    const { live, test } = await pairOf(t);
    assert.match(test.key, /^svc_test_/);
    const who = await t.request('GET', '/api/v1/auth/whoami', { key: test.key });
    assert.equal(who.status, 200, who.text);
    assert.equal(who.body.mode, 'test');
    assert.equal(who.body.customer_id, live.customerId);
    assert.equal((await t.request('GET', '/api/v1/auth/whoami', { key: live.key })).body.mode, 'live');
    const assistants = await t.request('GET', '/api/v1/assistants', { key: test.key });
    assert.deepEqual(
      assistants.body.data.map((a: { id: string }) => a.id),
      [live.assistant.id],
    );
  });

  it('keeps calls apart both ways: lists, reads by id, transcripts and idempotency keys', async () => {
    const { live, test } = await pairOf(t);
    const idem = { idempotencyKey: 'same-key-both-modes' };
    const liveCall = await placeCall(t, live, {}, idem);
    const testCall = await placeCall(t, test, {}, idem);
    assert.equal(liveCall.status, 201, liveCall.text);
    assert.equal(testCall.status, 201, testCall.text);
    assert.notEqual(testCall.body.id, liveCall.body.id, 'one Idempotency-Key, one call per mode');
    assert.equal(liveCall.body.livemode, true);
    assert.equal(testCall.body.livemode, false);
    for (const [own, other, call] of [
      [live, test, liveCall.body.id],
      [test, live, testCall.body.id],
    ] as const) {
      const mine = await t.request('GET', '/api/v1/calls', { key: own.key });
      assert.deepEqual(
        mine.body.data.map((c: { id: string }) => c.id),
        [call],
      );
      const theirs = await t.request('GET', '/api/v1/calls', { key: other.key });
      assert.ok(!theirs.body.data.some((c: { id: string }) => c.id === call), 'not listed in the other mode');
      assert.equal((await t.request('GET', `/api/v1/calls/${call}`, { key: other.key })).status, 404);
      assert.equal(
        (await t.request('GET', `/api/v1/calls/${call}/transcript`, { key: other.key })).status,
        404,
      );
      assert.equal((await t.request('GET', `/api/v1/calls/${call}`, { key: own.key })).status, 200);
    }
  });

  it('the dry run says a test call costs nothing, whatever the cap; a cursor of one mode continues nothing in the other', async () => {
    const { live } = await pairOf(t);
    const test = (
      await t.services.keys.createKey({
        customerId: live.customerId,
        name: 'no spend at all',
        scopes: SCOPES,
        dailySpendCapUsd: '0.00',
        mode: 'test',
      })
    ).secret;
    const dry = await t.request('POST', '/api/v1/outbound-calls/dry-run', {
      key: test,
      body: { assistant_id: live.assistant.id, to_number: '+14155550199' },
    });
    assert.equal(dry.status, 200, dry.text);
    assert.equal(dry.body.livemode, false);
    assert.equal(dry.body.allowed, true, 'a zero cap does not stop a call that costs nothing');
    assert.equal(dry.body.spend.call_estimate_usd, '0.0000');
    const liveDry = await t.request('POST', '/api/v1/outbound-calls/dry-run', {
      key: live.key,
      body: { assistant_id: live.assistant.id, to_number: '+14155550199' },
    });
    assert.equal(liveDry.body.livemode, true);
    for (let i = 0; i < 3; i++) await placeCall(t, live, {});
    const page = await t.request('GET', '/api/v1/calls?limit=1', { key: live.key });
    assert.ok(page.body.next_cursor);
    const crossed = await t.request(
      'GET',
      `/api/v1/calls?limit=1&cursor=${encodeURIComponent(page.body.next_cursor)}`,
      { key: test },
    );
    assert.equal(crossed.status, 422, 'a live cursor is not a test one');
    assert.equal(crossed.body.code, 'input.invalid');
  });

  it('a test call completes through the simulator, costs nothing and reserves no spend', async () => {
    const { test } = await pairOf(t);
    const placed = await placeCall(t, test, { to_number: '+14155550100' });
    assert.equal(placed.status, 201, placed.text);
    for (let i = 0; i < 12; i++) await advance(t, 30);
    const call = await t.request('GET', `/api/v1/calls/${placed.body.id}`, { key: test.key });
    assert.equal(call.body.status, 'completed', 'any other number completes in test mode');
    assert.equal(call.body.cost, 0);
    assert.equal(call.body.livemode, false);
    const reservations = await t.db
      .selectFrom('spend_reservations')
      .select('call_id')
      .where('call_id', '=', placed.body.id)
      .execute();
    assert.deepEqual(reservations, []);
  });

  it('test numbers choose the outcome', async () => {
    const { test } = await pairOf(t);
    const outcomes: [string, string, string | null][] = [
      ['+14155550191', 'busy', null],
      ['+14155550192', 'no_answer', null],
      ['+14155550193', 'failed', null],
      ['+14155550195', 'canceled', null],
      ['+14155550196', 'completed', 'voicemail'],
      ['+14155550199', 'completed', null],
    ];
    const ids: string[] = [];
    for (const [to] of outcomes) {
      const res = await placeCall(t, test, { to_number: to });
      assert.equal(res.status, 201, `${to}: ${res.text}`);
      ids.push(res.body.id);
    }
    for (let i = 0; i < 12; i++) await advance(t, 30);
    for (const [i, [to, status, reason]] of outcomes.entries()) {
      const call = await t.request('GET', `/api/v1/calls/${ids[i]}`, { key: test.key });
      assert.equal(call.body.status, status, to);
      if (reason) assert.equal(call.body.disconnect_reason, reason, to);
    }
    const unavailable = await placeCall(t, test, { to_number: '+14155550198' });
    assert.equal(unavailable.status, 502, unavailable.text);
    assert.equal(unavailable.body.code, 'carrier.unavailable');
    const busy = await placeCall(t, test, { to_number: '+14155550190' });
    assert.equal(busy.status, 503, busy.text);
    assert.equal(busy.body.code, 'carrier.busy');
    assert.equal(busy.headers['retry-after'], '5');
    const abroad = await placeCall(t, test, { to_number: '+442079460199' });
    assert.equal(abroad.status, 403, abroad.text);
    assert.equal(abroad.body.code, 'outbound.country_not_allowed', 'the allowlist holds in test mode too');
  });

  it('a test number whose transcript settles slowly: 202 for a minute, then 200', async () => {
    const { test } = await pairOf(t);
    const placed = await placeCall(t, test, { to_number: '+14155550197' });
    let call = await t.request('GET', `/api/v1/calls/${placed.body.id}`, { key: test.key });
    for (let i = 0; i < 30 && call.body.status !== 'completed'; i++) {
      await advance(t, 5);
      call = await t.request('GET', `/api/v1/calls/${placed.body.id}`, { key: test.key });
    }
    assert.equal(call.body.status, 'completed');
    const settling = await t.request('GET', `/api/v1/calls/${placed.body.id}/transcript`, { key: test.key });
    assert.equal(settling.status, 202, settling.text);
    await advance(t, 61);
    const ready = await t.request('GET', `/api/v1/calls/${placed.body.id}/transcript`, { key: test.key });
    assert.equal(ready.status, 200, ready.text);
  });

  it('webhooks: a test subscription gets test events only (livemode false), a live one live events only', async () => {
    const { live, test } = await pairOf(t);
    const liveSub = await subscribe(live, `live-${live.customerId}`);
    const testSub = await subscribe(test, `test-${live.customerId}`);
    assert.equal(liveSub.livemode, true);
    assert.equal(testSub.livemode, false);
    const listed = await t.request('GET', '/api/v1/webhook-subscriptions', { key: live.key });
    assert.deepEqual(
      listed.body.data.map((s: { id: string }) => s.id),
      [liveSub.id],
    );
    const testCall = await placeCall(t, test, {});
    const liveCall = await placeCall(t, live, {});
    for (let i = 0; i < 12; i++) await advance(t, 30);
    await worker.drain();
    const bodies = (subscriptionId: string) =>
      receiver.received
        .filter((r) => r.headers['x-svc-subscription-id'] === subscriptionId)
        .map((r) => JSON.parse(r.body) as { livemode: boolean; data: { call_id: string } });
    const toTest = bodies(testSub.id);
    const toLive = bodies(liveSub.id);
    assert.deepEqual(
      toTest.map((b) => [b.data.call_id, b.livemode]),
      [[testCall.body.id, false]],
    );
    assert.deepEqual(
      toLive.map((b) => [b.data.call_id, b.livemode]),
      [[liveCall.body.id, true]],
    );
  });

  it('POST /test/inbound-calls: a simulated caller rings an assistant; the test call is seen in test mode only', async () => {
    const { live, test } = await pairOf(t);
    const rang = await t.request('POST', '/api/v1/test/inbound-calls', {
      key: test.key,
      body: { assistant_id: live.assistant.id, from_number: '+14155550142', caller_name: 'Ada' },
    });
    assert.equal(rang.status, 201, rang.text);
    assert.equal(rang.body.direction, 'inbound');
    assert.equal(rang.body.status, 'ringing');
    assert.equal(rang.body.livemode, false);
    assert.equal(rang.body.from_number, '+14155550142');
    for (let i = 0; i < 30; i++) await advance(t, 30);
    const done = await t.request('GET', `/api/v1/calls/${rang.body.id}`, { key: test.key });
    assert.equal(done.body.status, 'completed');
    assert.equal(done.body.cost, 0);
    assert.equal((await t.request('GET', `/api/v1/calls/${rang.body.id}`, { key: live.key })).status, 404);
    const refused = await t.request('POST', '/api/v1/test/inbound-calls', {
      key: live.key,
      body: { assistant_id: live.assistant.id },
    });
    assert.equal(refused.status, 403, 'test mode only');
    assert.equal(refused.body.code, 'perm.denied');
    const other = await pairOf(t);
    const foreign = await t.request('POST', '/api/v1/test/inbound-calls', {
      key: test.key,
      body: { assistant_id: other.live.assistant.id },
    });
    assert.equal(foreign.status, 404, "another customer's assistant");
  });

  it('every object of one mode is a 404 or absent for the other: subscriptions, events, transcripts by either path', async () => {
    const { live, test } = await pairOf(t);
    const own = {
      live: await subscribe(live, `own-live-${live.customerId}`),
      test: await subscribe(test, `own-test-${live.customerId}`),
    };
    const calls = {
      live: (await placeCall(t, live, {})).body.id as string,
      test: (await placeCall(t, test, {})).body.id as string,
    };
    for (let i = 0; i < 12; i++) await advance(t, 30);
    await worker.drain();
    for (const [mode, other] of [
      ['live', 'test'],
      ['test', 'live'],
    ] as const) {
      const key = { live, test }[mode].key;
      const paths = [
        `/api/v1/webhook-subscriptions/${own[other].id}`,
        `/api/v1/calls/${calls[other]}`,
        `/api/v1/calls/${calls[other]}/transcript`,
        `/api/v1/outbound-calls/${calls[other]}/transcript`,
      ];
      for (const path of paths) {
        assert.equal((await t.request('GET', path, { key })).status, 404, `${mode} key, ${path}`);
      }
      assert.equal(
        (await t.request('DELETE', `/api/v1/webhook-subscriptions/${own[other].id}`, { key })).status,
        404,
        `${mode} key deletes no ${other} subscription`,
      );
      const events = await t.request('GET', '/api/v1/webhook-events', { key });
      assert.equal(events.status, 200, events.text);
      const callIds = new Set(events.body.data.map((e: { call_id: string }) => e.call_id));
      assert.ok(callIds.has(calls[mode]), `${mode} events list its own call`);
      assert.ok(!callIds.has(calls[other]), `${mode} events never list the other mode's`);
      assert.ok(events.body.data.every((e: { livemode: boolean }) => e.livemode === (mode === 'live')));
    }
  });

  it('customers purge-test-data deletes the test objects only; the test key goes on, on empty test data', async () => {
    const { live, test } = await pairOf(t);
    const liveCall = (await placeCall(t, live, {})).body.id;
    const testCall = (await placeCall(t, test, {})).body.id;
    assert.deepEqual(await t.services.customers.purgeTestData(live.customerId), {
      customerId: live.customerId,
      purged: true,
    });
    assert.equal((await t.request('GET', `/api/v1/calls/${testCall}`, { key: test.key })).status, 404);
    const testList = await t.request('GET', '/api/v1/calls', { key: test.key });
    assert.equal(testList.status, 200, 'the test key still works');
    assert.deepEqual(testList.body.data, []);
    assert.equal((await t.request('GET', `/api/v1/calls/${liveCall}`, { key: live.key })).status, 200);
    assert.equal((await placeCall(t, test, {})).status, 201, 'and places test calls again');
    const never = await newCaller(t);
    assert.equal((await t.services.customers.purgeTestData(never.customerId)).purged, false);
  });

  it('the dashboard: "View test data" shows test calls, keys and webhooks only, makes test keys, and switches back', async () => {
    const { live, test } = await pairOf(t);
    const liveCall = (await placeCall(t, live, {})).body.id as string;
    const testCall = (await placeCall(t, test, {})).body.id as string;
    const liveSub = await subscribe(live, `dash-live-${live.customerId}`);
    const testSub = await subscribe(test, `dash-test-${live.customerId}`);
    const { client } = await signedIn(t, live.customerId);
    try {
      const livePage = await client.get('/dashboard/calls');
      assert.ok(livePage.text.includes(liveCall) && !livePage.text.includes(testCall));
      assert.ok(livePage.text.includes('View test data'));
      assert.ok(!livePage.text.includes('Viewing test data'));
      const switched = await client.post('/dashboard/view', {
        _csrf: client.csrf(),
        mode: 'test',
        back: '/dashboard/calls',
      });
      assert.equal(switched.status, 303, switched.text);
      assert.equal(switched.headers.location, '/dashboard/calls');
      const testPage = await client.get('/dashboard/calls');
      assert.ok(testPage.text.includes('Viewing test data'));
      assert.ok(testPage.text.includes(testCall) && !testPage.text.includes(liveCall), 'test calls only');
      assert.equal(
        (await client.get(`/dashboard/calls/${liveCall}`)).status,
        404,
        'a live call is not in the test view',
      );
      const keys = await client.get('/dashboard/keys');
      assert.ok(keys.text.includes(test.key.slice(0, 12)) && !keys.text.includes(live.key.slice(0, 12)));
      const usage = await client.get('/dashboard/usage');
      assert.equal(usage.status, 200);
      assert.ok(usage.text.includes(test.key.slice(0, 12)) && !usage.text.includes(live.key.slice(0, 12)));
      const hooks = await client.get('/dashboard/webhooks');
      assert.ok(hooks.text.includes(testSub.id) && !hooks.text.includes(liveSub.id));
      await client.get('/dashboard/keys/new');
      const made = await client.post('/dashboard/keys', {
        _csrf: client.csrf(),
        name: 'made in the test view',
        preset: 'automation',
        daily_spend_cap_usd: '10.00',
        allowed_countries: 'US',
      });
      assert.equal(made.status, 303, made.text);
      const shown = await client.get(String(made.headers.location ?? '/dashboard/keys'));
      assert.match(shown.text, /svc_test_[0-9A-Za-z]{36}/, 'a key made in the test view is a test key');
      await client.post('/dashboard/view', { _csrf: client.csrf(), mode: 'live', back: '/dashboard/calls' });
      const back = await client.get('/dashboard/calls');
      assert.ok(
        back.text.includes(liveCall) &&
          !back.text.includes(testCall) &&
          !back.text.includes('Viewing test data'),
      );
    } finally {
      await client.close();
    }
  });

  it('test keys count against their own rate window, not the live one', async () => {
    const { live, test } = await pairOf(t, { rateLimitPerMinute: 3 });
    for (let i = 0; i < 3; i++) {
      assert.equal((await t.request('GET', '/api/v1/auth/whoami', { key: test.key })).status, 200);
    }
    const over = await t.request('GET', '/api/v1/auth/whoami', { key: test.key });
    assert.equal(over.status, 429);
    assert.equal((await t.request('GET', '/api/v1/auth/whoami', { key: live.key })).status, 200);
  });

  it('revoked and rotated like live keys', async () => {
    const { test } = await pairOf(t);
    const rotated = await t.services.keys.rotateKey(test.customerId, test.keyId);
    assert.match(rotated.secret, /^svc_test_/);
    await t.services.keys.revokeKey(test.customerId, test.keyId);
    const res = await t.request('GET', '/api/v1/auth/whoami', { key: rotated.secret });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'auth.revoked');
  });
});

describe('test mode off (TEST_MODE=false)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ testMode: false });
  });
  after(() => t.close());

  it('offers no test view in the dashboard', async () => {
    const live = await newCaller(t);
    const { client } = await signedIn(t, live.customerId);
    try {
      const page = await client.get('/dashboard/calls');
      assert.ok(!page.text.includes('View test data'));
      const refused = await client.post('/dashboard/view', {
        _csrf: client.csrf(),
        mode: 'test',
        back: '/dashboard/',
      });
      assert.equal(refused.status, 403);
    } finally {
      await client.close();
    }
  });

  it('refuses svc_test_ keys as before, and makes none', async () => {
    const live = await newCaller(t);
    const res = await t.request('GET', '/api/v1/auth/whoami', {
      key: 'svc_test_abcdefabcdefabcdefabcdefabcdefabcdef',
    });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'auth.invalid');
    await assert.rejects(
      t.services.keys.createKey({ customerId: live.customerId, name: 'x', scopes: [], mode: 'test' }),
      /invalid values/,
    );
  });
});

describe('test mode under PROVIDER=elevenlabs', () => {
  it('a test call never reaches ElevenLabs, and completes through the simulator', async () => {
    const fake = await startFakeElevenLabs({ apiKey: 'xi-test-mode' });
    const t = await startTestApp({
      testMode: true,
      provider: {
        kind: 'elevenlabs',
        apiKey: 'xi-test-mode',
        webhookSecret: 'wsec_testmode0123456789',
        baseUrl: fake.baseUrl,
        timeoutMs: 2_000,
      },
    });
    try {
      const { test } = await pairOf(t);
      const placed = await placeCall(t, test, {});
      assert.equal(placed.status, 201, placed.text);
      for (let i = 0; i < 12; i++) await advance(t, 30);
      const call = await t.request('GET', `/api/v1/calls/${placed.body.id}`, { key: test.key });
      assert.equal(call.body.status, 'completed');
      const transcript = await t.request('GET', `/api/v1/calls/${placed.body.id}/transcript`, {
        key: test.key,
      });
      assert.equal(transcript.status, 200, transcript.text);
      assert.deepEqual(fake.requests, [], 'nothing asked of ElevenLabs');
    } finally {
      await t.close();
      await fake.close();
    }
  });
});
