import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ManualClock } from '../clock.ts';
import { snippetFolder } from '../testing/doc-blocks.ts';
import { ANSWERS, advance, type Caller, newCaller, placeCall } from '../testing/outbound.fixtures.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';
import { emitEvent } from '../testing/webhook.fixtures.ts';
import { isObject, type Json, operationsOf, str } from './json.ts';

/**
 * Every request example of the reference runs as written against the test server over HTTPS: each curl command
 * in bash, each SDK program on Node 24 from a folder linked to this repository (as `@voice-calls/sdk` resolves
 * here), with BASE_URL, KEY and VOICE_CALLS_API_KEY set as the page says, and the ids of the examples replaced by
 * the customer's own (as a reader fills in theirs). Each must be answered with one of its documented 2xx statuses;
 * the test server checks every answer against the schema its route documents.
 */

const run = promisify(execFile);
/** The examples' instants are of 2026-11-21; the server's clock is set there, so `since` is within its 7 days. */
const NOW = new Date('2026-11-21T12:00:00.000Z');

type Sample = { operationId: string; method: string; curl: string; sdk: string; statuses: string[] };

/** Creating first, then reading and acting, deleting last: the order a reader would try them in. */
const rank = (s: Sample) => (s.operationId.startsWith('create') ? 0 : s.method === 'delete' ? 2 : 1);

describe('the request examples of the reference, run as written', () => {
  let t: TestApp;
  let dir: string;
  let certFile: string;
  let samples: Sample[];
  let doc: Json;

  before(async () => {
    t = await startTestApp({ clock: new ManualClock(NOW), testMode: true });
    dir = snippetFolder('vca-examples-');
    certFile = path.join(dir, 'cert.pem');
    writeFileSync(certFile, t.cert);
    doc = (await t.request('GET', '/api/v1/openapi.json')).body;
    samples = operationsOf(doc)
      .map(({ method, op }) => {
        const [curl, sdk] = (Array.isArray(op['x-codeSamples']) ? op['x-codeSamples'] : [])
          .filter(isObject)
          .map((s) => str(s.source));
        const statuses = Object.keys(isObject(op.responses) ? op.responses : {}).filter((s) =>
          s.startsWith('2'),
        );
        return { operationId: str(op.operationId), method, curl: curl ?? '', sdk: sdk ?? '', statuses };
      })
      .sort((a, b) => rank(a) - rank(b));
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The example values each operation's request carries: its parameters' and its body's. */
  function exampleValues(operationId: string): Map<string, string> {
    const found = operationsOf(doc).find((o) => o.op.operationId === operationId);
    const values = new Map<string, string>();
    for (const p of (Array.isArray(found?.op.parameters) ? found.op.parameters : []).filter(isObject)) {
      if ('example' in p) values.set(`${str(p.in)}.${str(p.name)}`, String(p.example));
    }
    const body =
      isObject(found?.op.requestBody) && isObject(found.op.requestBody.content)
        ? found.op.requestBody.content['application/json']
        : null;
    if (isObject(body) && isObject(body.example)) {
      for (const [k, v] of Object.entries(body.example)) values.set(`body.${k}`, String(v));
    }
    return values;
  }

  /**
   * A customer of its own for each way of running them, with what the examples name: an answered outbound call
   * (its transcript), an event, and subscriptions to read, rotate, redeliver to and delete (two: one for each
   * delete). Its subscriptions are disabled before any event (`quiet`, again once the samples ran, which make
   * one): the test database is shared, and a pending delivery of an active subscription, due on this test's
   * clock in 2026-11-21, would be the oldest of all for another test's worker or claim to take.
   */
  async function world(): Promise<{
    caller: Caller;
    ids: (operationId: string) => Record<string, string>;
    /** The key a sample runs with: the test-mode routes need the customer's `svc_test_` key. */
    keyFor: (operationId: string) => string;
    quiet: () => Promise<void>;
  }> {
    const caller = await newCaller(t);
    const testKey = (
      await t.services.keys.createKey({
        customerId: caller.customerId,
        name: 'test mode',
        scopes: ['read_calls', 'send_sms'],
        mode: 'test',
      })
    ).secret;
    const quiet = async () => {
      await t.db
        .updateTable('webhook_subscriptions')
        .set({ is_active: false })
        .where('customer_id', '=', caller.customerId)
        .execute();
    };
    const subscribe = async (url: string) => {
      const res = await t.request('POST', '/api/v1/webhook-subscriptions', {
        key: caller.key,
        body: { url, events: ['call.completed'] },
      });
      assert.equal(res.status, 201, res.text);
      return String(res.body.id);
    };
    const kept = await subscribe('https://example.com/kept');
    const legacy = await subscribe('https://example.com/deleted-by-query');
    await quiet();
    const placed = await placeCall(t, caller, { to_number: ANSWERS });
    assert.equal(placed.status, 201, placed.text);
    // Answered, ended and settled: the clock only moves on (minutes past NOW), as the provider's would.
    for (let i = 0; i < 8; i++) await advance(t, 30);
    const callId = String(placed.body.id);
    const event = (await emitEvent(t, caller.customerId, callId)).id;
    const message = await t.request('POST', '/api/v1/sms/send', {
      key: caller.key,
      body: { assistant_id: caller.assistant.id, to_number: ANSWERS, body: 'Hello' },
    });
    assert.equal(message.status, 201, message.text);
    const ids: Record<string, Record<string, string>> = {
      getCall: { 'path.id': callId },
      deleteCall: { 'path.id': callId },
      getCallTranscript: { 'path.id': callId },
      getOutboundCallTranscript: { 'path.id': callId },
      createOutboundCall: { 'body.assistant_id': caller.assistant.id },
      dryRunOutboundCall: { 'body.assistant_id': caller.assistant.id },
      getWebhookSubscription: { 'path.id': kept },
      rotateWebhookSecret: { 'path.id': kept },
      redeliverWebhookEventsSince: { 'path.id': kept },
      redeliverWebhookEvent: { 'path.id': event, 'body.subscription_id': kept },
      deleteWebhookSubscription: { 'path.id': kept },
      deleteWebhookSubscriptionLegacy: { 'query.id': legacy },
      createTestInboundCall: { 'body.assistant_id': caller.assistant.id },
      sendSms: { 'body.assistant_id': caller.assistant.id },
      dryRunSms: { 'body.assistant_id': caller.assistant.id },
      getMessage: { 'path.id': String(message.body.id) },
      createTestInboundSms: { 'body.to_number': caller.assistant.phone_numbers[0] ?? '' },
    };
    return {
      caller,
      ids: (operationId) => ids[operationId] ?? {},
      keyFor: (operationId) => (operationId.startsWith('createTestInbound') ? testKey : caller.key),
      quiet,
    };
  }

  /** The sample with the example's ids replaced by the customer's. */
  function filled(source: string, operationId: string, ids: Record<string, string>): string {
    let out = source;
    const examples = exampleValues(operationId);
    for (const [where, real] of Object.entries(ids)) {
      const example = examples.get(where);
      assert.ok(example, `${operationId} has an example ${where}`);
      assert.ok(out.includes(example), `${operationId}: the sample sends ${where}`);
      out = out.replaceAll(example, real);
    }
    return out;
  }

  it('every curl command gets one of its documented 2xx answers', async () => {
    const { ids, keyFor, quiet } = await world();
    const env = { ...process.env, BASE_URL: t.url, CURL_CA_BUNDLE: certFile };
    const answers: Record<string, string> = {};
    for (const s of samples) {
      const command = `${filled(s.curl, s.operationId, ids(s.operationId))} --silent --show-error --write-out '\\n%{http_code}'`;
      const { stdout } = await run('bash', ['-c', command], {
        env: { ...env, KEY: keyFor(s.operationId) },
        timeout: 30_000,
      });
      const status = stdout.trim().split('\n').at(-1) ?? '';
      answers[s.operationId] = s.statuses.includes(status)
        ? 'documented 2xx'
        : `${status}: ${stdout.slice(0, 300)}`;
    }
    await quiet();
    assert.deepEqual(answers, Object.fromEntries(samples.map((s) => [s.operationId, 'documented 2xx'])));
    assert.ok(
      samples.filter((s) => s.method === 'get').length >= 8 && samples.some((s) => s.method === 'post'),
    );
  });

  it('every SDK program runs to its end (the SDK throws ProblemError on any error answer)', async () => {
    const { ids, keyFor, quiet } = await world();
    const env = { ...process.env, BASE_URL: t.url, NODE_EXTRA_CA_CERTS: certFile };
    const outcomes: Record<string, string> = {};
    for (const s of samples) {
      const file = path.join(dir, `${s.operationId}.ts`);
      writeFileSync(file, filled(s.sdk, s.operationId, ids(s.operationId)));
      outcomes[s.operationId] = await run(process.execPath, ['--conditions=@voice-calls/source', file], {
        cwd: dir,
        env: { ...env, VOICE_CALLS_API_KEY: keyFor(s.operationId) },
        timeout: 60_000,
      }).then(
        () => 'ran',
        (error: { stderr?: string }) => `failed: ${error.stderr?.slice(0, 400)}`,
      );
    }
    await quiet();
    assert.deepEqual(outcomes, Object.fromEntries(samples.map((s) => [s.operationId, 'ran'])));
  });
});
