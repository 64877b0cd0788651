import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Agent, fetch as undiciFetch } from 'undici';
import { insertCalls } from '../../src/calls/calls.repository.ts';
import { generateCalls } from '../../src/demo/call-generator.ts';
import { rng } from '../../src/provider/random.ts';
import { ANSWERS, newCaller } from '../../src/testing/outbound.fixtures.ts';
import { newCustomer, startTestApp, type TestApp } from '../../src/testing/test-app.ts';
import { type FetchLike, ProblemError, VoiceCallsClient } from '../src/index.ts';
import { RETRY_DEFAULTS, retryDelayMs } from '../src/retry.ts';

describe('SDK client against the real server', () => {
  let t: TestApp;
  let agent: Agent;
  let requests: { method: string; url: string; status: number | null }[];

  before(async () => {
    t = await startTestApp();
    agent = new Agent({ connect: { ca: t.cert, servername: 'localhost' } });
  });
  after(async () => {
    await agent.close();
    await t.close();
  });

  /** A client over real HTTPS that records every attempt and waits by moving the test clock. */
  function client(key: string, o: { slept?: number[]; onSleep?: () => void; failFirst?: number } = {}) {
    requests = [];
    let failures = o.failFirst ?? 0;
    const fetch: FetchLike = async (url, init) => {
      if (failures > 0) {
        failures -= 1;
        requests.push({ method: init.method, url, status: null });
        throw new TypeError('fetch failed (simulated connection reset)');
      }
      const res = await undiciFetch(url, { ...init, dispatcher: agent });
      requests.push({ method: init.method, url, status: res.status });
      return res;
    };
    return new VoiceCallsClient({
      apiKey: key,
      baseUrl: t.url,
      fetch,
      random: () => 0.5,
      sleep: async (ms) => {
        o.slept?.push(ms);
        t.clock.advance(ms);
        o.onSleep?.();
      },
    });
  }

  it('iterates every call across pages with the cursor, newest first', async () => {
    const c = await newCustomer(t);
    const assistant = await t.services.assistants.createAssistant({
      customerId: c.customerId,
      name: 'Desk',
      voiceId: 'aria',
      phoneNumbers: ['+14155550100'],
    });
    const rows = generateCalls({
      customerId: c.customerId,
      assistants: [assistant],
      count: 7,
      end: t.clock.now(),
      days: 1,
      random: rng(7),
    });
    await insertCalls(t.db, rows);
    const sdk = client(c.key);
    const seen: string[] = [];
    for await (const call of sdk.calls.iterate({ limit: 3 })) seen.push(call.id);
    const expected = [...rows]
      .sort((a, b) => b.started_at.getTime() - a.started_at.getTime() || (a.id < b.id ? 1 : -1))
      .map((r) => r.id);
    assert.deepEqual(seen, expected);
    assert.equal(requests.length, 3, 'three pages of 3, 3 and 1');
    assert.match(requests[1]?.url ?? '', /[?&]cursor=/);
    assert.deepEqual(t.responseMismatches, []);
  });

  it('waits Retry-After on 429 (per-key ceiling) and then succeeds', async () => {
    const c = await newCustomer(t, { keyRateLimitPerMinute: 2 });
    const slept: number[] = [];
    const sdk = client(c.key, { slept });
    await sdk.whoami();
    await sdk.whoami();
    const me = await sdk.whoami();
    assert.equal(me.customer_id, c.customerId);
    assert.deepEqual(
      requests.map((r) => r.status),
      [200, 200, 429, 200],
    );
    assert.equal(slept.length, 1);
    assert.ok(slept[0] !== undefined && slept[0] >= 1000 && slept[0] <= 60_000, `waited ${slept[0]} ms`);
    assert.equal(slept[0] % 1000, 0, 'whole seconds, as Retry-After says');
  });

  it('gives up on 429 when Retry-After is longer than it is willing to wait', async () => {
    const c = await newCustomer(t, { keyRateLimitPerMinute: 1 });
    const sdk = new VoiceCallsClient({
      apiKey: c.key,
      baseUrl: t.url,
      fetch: (url, init) => undiciFetch(url, { ...init, dispatcher: agent }),
      retry: { maxRetryAfterSeconds: 5 },
      sleep: async () => assert.fail('must not wait'),
    });
    await sdk.whoami();
    const error = await sdk.whoami().then(
      () => assert.fail('expected 429'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof ProblemError);
    assert.equal(error.code, 'rate.exceeded_key');
    assert.ok((error.retryAfterSeconds ?? 0) > 5);
  });

  it('backs off and retries a 502 on POST /outbound-calls sent with an Idempotency-Key', async () => {
    const c = await newCaller(t);
    const slept: number[] = [];
    t.services.simulator.configure({ fault: 'unavailable' });
    const sdk = client(c.key, { slept, onSleep: () => t.services.simulator.configure({ fault: 'none' }) });
    try {
      const call = await sdk.outboundCalls.create(
        { assistant_id: c.assistant.id, to_number: ANSWERS, external_id: 'order-1' },
        { idempotencyKey: `order-1-${randomUUID()}` },
      );
      assert.equal(call.status, 'queued');
      assert.equal(call.external_id, 'order-1');
    } finally {
      t.services.simulator.configure({ fault: 'none' });
    }
    assert.deepEqual(
      requests.map((r) => r.status),
      [502, 201],
    );
    // Backoff 500 ms × jitter (0.5 + 0.5 / 2).
    assert.deepEqual(slept, [375]);
  });

  it('dry-runs a placement on POST /outbound-calls/dry-run: every check, nothing placed', async () => {
    const c = await newCaller(t);
    const placements = await t.services.simulator.placementCount();
    const sdk = client(c.key);
    const allowed = await sdk.outboundCalls.dryRun({ assistant_id: c.assistant.id, to_number: ANSWERS });
    assert.equal(allowed.allowed, true);
    const refused = await sdk.outboundCalls.dryRun({
      assistant_id: c.assistant.id,
      to_number: '+442071838750',
    });
    assert.deepEqual(
      refused.checks.filter((x) => !x.passed).map((x) => x.code),
      ['outbound.country_not_allowed'],
    );
    assert.deepEqual(
      requests.map((r) => `${r.method} ${new URL(r.url).pathname}${new URL(r.url).search} ${r.status}`),
      Array(2).fill('POST /api/v1/outbound-calls/dry-run 200'),
    );
    assert.equal(await t.services.simulator.placementCount(), placements);
  });

  it('never retries a POST /outbound-calls without an Idempotency-Key', async () => {
    const c = await newCaller(t);
    t.services.simulator.configure({ fault: 'unavailable' });
    const sdk = client(c.key, { onSleep: () => assert.fail('must not retry') });
    try {
      await assert.rejects(
        sdk.outboundCalls.create({ assistant_id: c.assistant.id, to_number: ANSWERS }),
        (e: unknown) => e instanceof ProblemError && e.status === 502 && e.code === 'carrier.unavailable',
      );
    } finally {
      t.services.simulator.configure({ fault: 'none' });
    }
    assert.equal(requests.length, 1);
  });

  it('retries a GET after a dropped connection, but not a non-idempotent POST', async () => {
    const c = await newCustomer(t);
    assert.equal((await client(c.key, { failFirst: 1 }).whoami()).customer_id, c.customerId);
    assert.deepEqual(
      requests.map((r) => r.status),
      [null, 200],
    );
    const sub = await client(c.key).webhookSubscriptions.create({
      url: 'https://example.com/hooks',
      events: ['call.completed'],
    });
    const sdk = client(c.key, { failFirst: 1 });
    await assert.rejects(sdk.webhookSubscriptions.rotateSecret(sub.subscription.id), /simulated/);
    assert.equal(requests.length, 1);
  });

  it('surfaces problem details as a typed ProblemError with code, status, request id and issues', async () => {
    const c = await newCustomer(t);
    const sdk = client(c.key);
    const invalid = await sdk.calls.list({ limit: 500 }).then(
      () => assert.fail('expected 422'),
      (e: unknown) => e,
    );
    assert.ok(invalid instanceof ProblemError);
    assert.equal(invalid.status, 422);
    assert.equal(invalid.code, 'input.invalid');
    assert.deepEqual(invalid.issues[0]?.path, ['query', 'limit']);
    assert.match(invalid.requestId ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(requests.length, 1, 'a 422 is not retried');

    await assert.rejects(sdk.calls.get(randomUUID()), {
      name: 'ProblemError',
      code: 'resource.not_found',
      status: 404,
    });
    const noScope = await newCustomer(t, { scopes: ['read_assistants'] });
    await assert.rejects(client(noScope.key).calls.list(), { code: 'perm.denied', status: 403 });
    await assert.rejects(client('svc_live_not-a-key').whoami(), { code: 'auth.invalid', status: 401 });
  });

  it('covers the subscription and event endpoints with their documented types', async () => {
    const c = await newCustomer(t);
    const sdk = client(c.key);
    const first = await sdk.webhookSubscriptions.create({
      url: 'https://example.com/a',
      events: ['call.completed'],
    });
    const again = await sdk.webhookSubscriptions.create({
      url: 'https://example.com/a',
      events: ['call.completed'],
    });
    assert.equal(first.created, true);
    assert.match(first.subscription.secret ?? '', /^whsec_/);
    assert.equal(again.created, false);
    assert.equal(again.subscription.secret, undefined);
    const all: string[] = [];
    for await (const s of sdk.webhookSubscriptions.iterate({ limit: 1 })) all.push(s.id);
    assert.deepEqual(all, [first.subscription.id]);
    const rotated = await sdk.webhookSubscriptions.rotateSecret(first.subscription.id);
    assert.notEqual(rotated.secret, first.subscription.secret);
    assert.deepEqual((await sdk.webhookEvents.list()).data, []);
    assert.deepEqual(await sdk.webhookSubscriptions.delete(first.subscription.id), {
      id: first.subscription.id,
      deleted: true,
    });
    assert.deepEqual(t.responseMismatches, []);
  });
});

describe('retry policy', () => {
  const o = RETRY_DEFAULTS;
  it('waits Retry-After exactly, backs off with jitter otherwise, and stops at the limits', () => {
    assert.equal(
      retryDelayMs(o, 1, { status: 429, retryAfterSeconds: 7 }, () => 0),
      7000,
    );
    assert.equal(
      retryDelayMs(o, 1, { status: 429, retryAfterSeconds: 61 }, () => 0),
      null,
    );
    assert.equal(
      retryDelayMs(o, 1, { status: 502, retryAfterSeconds: null }, () => 0),
      250,
    );
    assert.equal(
      retryDelayMs(o, 3, { status: 503, retryAfterSeconds: null }, () => 0.999_999),
      2000,
    );
    assert.equal(
      retryDelayMs(o, 9, { status: null, retryAfterSeconds: null }, () => 0),
      null,
    );
    assert.equal(
      retryDelayMs({ ...o, maxDelayMs: 1000 }, 3, { status: 504, retryAfterSeconds: null }, () => 0.999_999),
      1000,
    );
    for (const status of [400, 401, 403, 404, 409, 422, 500]) {
      assert.equal(
        retryDelayMs(o, 1, { status, retryAfterSeconds: 1 }, () => 0),
        null,
        String(status),
      );
    }
  });
});
