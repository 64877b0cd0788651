import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rawRequest } from '../testing/raw-tls.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { callFor, emitEvent } from '../testing/webhook.fixtures.ts';

/**
 * A POST to an action that takes no body (no body schema, or one `{}` satisfies): what `curl -X POST` and its
 * variants send, byte for byte, is accepted; a body that is there still needs `Content-Type: application/json`.
 */
describe('POST actions that take no body', () => {
  let t: TestApp;
  let key: string;
  let subId: string;
  let eventId: string;
  before(async () => {
    t = await startTestApp();
    const c = await newCustomer(t);
    key = c.key;
    const sub = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key,
      body: { url: 'https://example.com/hooks', events: ['call.completed'] },
    });
    assert.equal(sub.status, 201, sub.text);
    subId = sub.body.id;
    const { callId } = await callFor(t, c.customerId);
    eventId = (await emitEvent(t, c.customerId, callId)).id;
  });
  after(async () => {
    // The test database is shared by the whole run: its pending deliveries to this subscription must not be
    // claimed by another test's worker (a deleted subscription's never are).
    await t.request('DELETE', `/api/v1/webhook-subscriptions/${subId}`, { key });
    await t.close();
  });

  /** As curl sends it: request line, Host, User-Agent, Accept, the key, then what the variant adds (and a body's length). */
  const curl = (path: string, headers: string[] = [], body = '') => {
    const framed = headers.some((h) => /^(content-length|transfer-encoding):/i.test(h));
    const length = body && !framed ? [`Content-Length: ${Buffer.byteLength(body)}`] : [];
    return rawRequest(
      t.url,
      t.cert,
      [
        `POST ${path} HTTP/1.1`,
        `Host: ${new URL(t.url).host}`,
        'User-Agent: curl/8.5.0',
        'Accept: */*',
        `Authorization: Bearer ${key}`,
        'Connection: close',
        ...headers,
        ...length,
      ].join('\r\n'),
      { body },
    );
  };
  const rotate = () => `/api/v1/webhook-subscriptions/${subId}/rotate-secret`;
  const redeliver = () => `/api/v1/webhook-events/${eventId}/redeliver`;
  const secretOf = async () =>
    (
      await t.db
        .selectFrom('webhook_subscriptions')
        .select('secret_encrypted')
        .where('id', '=', subId)
        .executeTakeFirstOrThrow()
    ).secret_encrypted;

  const accepted: [string, string[], string][] = [
    ['curl -X POST: no Content-Type, no body', [], ''],
    ['Content-Length: 0 and no Content-Type', ['Content-Length: 0'], ''],
    [
      'curl -X POST -H "Content-Type: application/json": the type, no body',
      ['Content-Type: application/json'],
      '',
    ],
    [
      "curl -d '': a form type and Content-Length: 0",
      ['Content-Type: application/x-www-form-urlencoded', 'Content-Length: 0'],
      '',
    ],
    ['application/json with {}', ['Content-Type: application/json'], '{}'],
  ];
  for (const [what, headers, body] of accepted) {
    it(`rotate-secret and a single event's redeliver accept ${what}`, async () => {
      const before = await secretOf();
      const rotated = await curl(rotate(), headers, body);
      assert.equal(rotated.status, 200, rotated.text);
      assert.match(rotated.body.secret, /^whsec_/);
      assert.notEqual(await secretOf(), before, 'the secret was rotated');
      const queued = await curl(redeliver(), headers, body);
      assert.equal(queued.status, 202, queued.text);
      assert.equal(typeof queued.body.scheduled, 'number');
    });
  }

  it('a body that is there is still read as JSON and validated', async () => {
    const json = ['Content-Type: application/json'];
    const named = await curl(redeliver(), json, JSON.stringify({ subscription_id: subId }));
    assert.equal(named.status, 202, named.text);
    const wrong = await curl(redeliver(), json, JSON.stringify({ subscription_id: 'nope' }));
    assert.equal(wrong.status, 422, wrong.text);
    assert.deepEqual(wrong.body.issues[0].path, ['body', 'subscription_id']);
    const broken = await curl(redeliver(), json, '{');
    assert.equal(broken.status, 400, broken.text);
    assert.equal(broken.body.code, 'input.malformed');
  });

  const refused: [string, () => string, string[], string][] = [
    ['rotate-secret with a body as text/plain', rotate, ['Content-Type: text/plain'], '{}'],
    ['redeliver with a form body', redeliver, ['Content-Type: application/x-www-form-urlencoded'], 'a=1'],
    ['rotate-secret with a chunked body and no type', rotate, ['Transfer-Encoding: chunked'], '0\r\n\r\n'],
    ['POST /outbound-calls without a body (it takes one)', () => '/api/v1/outbound-calls', [], ''],
    [
      'redeliver since without a body (it takes one)',
      () => `/api/v1/webhook-subscriptions/${subId}/redeliver`,
      [],
      '',
    ],
  ];
  for (const [what, path, headers, body] of refused) {
    it(`415 input.unsupported_media_type: ${what}`, async () => {
      const res = await curl(path(), headers, body);
      assert.equal(res.status, 415, res.text);
      assert.equal(res.body.code, 'input.unsupported_media_type');
    });
  }

  it('the OpenAPI document marks the body of a single event redelivery optional, and the others required', async () => {
    const doc = (await t.request('GET', '/api/v1/openapi.json')).body;
    assert.equal(doc.paths['/webhook-events/{id}/redeliver'].post.requestBody.required, false);
    assert.equal(doc.paths['/webhook-subscriptions/{id}/rotate-secret'].post.requestBody, undefined);
    for (const path of [
      '/outbound-calls',
      '/webhook-subscriptions',
      '/webhook-subscriptions/{id}/redeliver',
    ]) {
      assert.equal(doc.paths[path].post.requestBody.required, true, path);
    }
  });
});
