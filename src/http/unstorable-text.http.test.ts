import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Caller, newCaller, placeCall } from '../testing/outbound.fixtures.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';

const NUL = 'a\u0000b';
const LOW = 'a\udc00b';
const HIGH = 'a\ud83d';

/**
 * Text PostgreSQL cannot keep (NUL in `text`/`jsonb`, an unpaired surrogate in `jsonb`) used to reach it and
 * answer 500 on both databases. Every string the API takes, keys of free-form objects included, is checked once
 * where requests are validated (http/validation.ts): 422 naming the path, nothing stored. Ordinary Unicode
 * round-trips.
 */
describe('text the database cannot keep is 422, everything else round-trips', () => {
  let t: TestApp;
  let c: Caller;
  before(async () => {
    t = await startTestApp();
    c = await newCaller(t);
  });
  after(() => t.close());

  const subscriptions = () =>
    t.db.selectFrom('webhook_subscriptions').select('id').where('customer_id', '=', c.customerId).execute();
  const calls = () => t.db.selectFrom('calls').select('id').where('customer_id', '=', c.customerId).execute();
  const subscribe = (body: Record<string, unknown>) =>
    t.request('POST', '/api/v1/webhook-subscriptions', {
      key: c.key,
      body: { url: 'https://example.com/hooks', events: ['call.completed'], ...body },
    });

  const refused: [
    string,
    () => Promise<{ status: number; body: { code: string; issues: unknown } }>,
    string[],
  ][] = [
    ['subscription description with a NUL', () => subscribe({ description: NUL }), ['body', 'description']],
    [
      'subscription description with a lone low surrogate',
      () => subscribe({ description: LOW }),
      ['body', 'description'],
    ],
    [
      'subscription description with a lone high surrogate',
      () => subscribe({ description: HIGH }),
      ['body', 'description'],
    ],
    ['subscription url with a NUL', () => subscribe({ url: `https://example.com/${NUL}` }), ['body', 'url']],
    [
      'subscription url with a lone surrogate',
      () => subscribe({ url: `https://example.com/${LOW}` }),
      ['body', 'url'],
    ],
    ['an event name with a NUL', () => subscribe({ events: [NUL] }), ['body', 'events', '0']],
    [
      'a metadata key with a NUL',
      () => placeCall(t, c, { metadata: { [NUL]: 'v' } }),
      ['body', 'metadata', 'a\uFFFDb'],
    ],
    [
      'a metadata value with a NUL',
      () => placeCall(t, c, { metadata: { k: NUL } }),
      ['body', 'metadata', 'k'],
    ],
    [
      'a metadata key with a lone surrogate',
      () => placeCall(t, c, { metadata: { [LOW]: 'v' } }),
      ['body', 'metadata', 'a\uFFFDb'],
    ],
    [
      'a metadata value with a lone surrogate',
      () => placeCall(t, c, { metadata: { k: HIGH } }),
      ['body', 'metadata', 'k'],
    ],
    [
      'a variables key with a NUL',
      () => placeCall(t, c, { variables: { [`x${NUL}`]: 'v' } }),
      ['body', 'variables', 'xa\uFFFDb'],
    ],
    [
      'a variables value with a NUL',
      () => placeCall(t, c, { variables: { name: NUL } }),
      ['body', 'variables', 'name'],
    ],
    [
      'a variables value with a lone surrogate',
      () => placeCall(t, c, { variables: { name: LOW } }),
      ['body', 'variables', 'name'],
    ],
    [
      'external_id with a lone surrogate',
      () => placeCall(t, c, { external_id: LOW }),
      ['body', 'external_id'],
    ],
    [
      'callback_url with a NUL',
      () => placeCall(t, c, { callback_url: `https://example.com/${NUL}` }),
      ['body', 'callback_url'],
    ],
    [
      'a query parameter with a NUL',
      () => t.request('GET', '/api/v1/calls?cursor=%00', { key: c.key }),
      ['query', 'cursor'],
    ],
    [
      'a query parameter name with a NUL',
      () => t.request('GET', '/api/v1/calls?a%00=1', { key: c.key }),
      ['query', 'a\uFFFD'],
    ],
    [
      'a path parameter with a NUL',
      () => t.request('GET', '/api/v1/webhook-subscriptions/sub_%00', { key: c.key }),
      ['path', 'id'],
    ],
    [
      'redelivery since with a NUL',
      () =>
        t.request('POST', '/api/v1/webhook-subscriptions/sub_0123456789abcdef01234567/redeliver', {
          key: c.key,
          body: { since: NUL },
        }),
      ['body', 'since'],
    ],
  ];
  for (const [what, send, path] of refused) {
    it(`${what}: 422 input.invalid naming ${path.join('.')}, nothing stored`, async () => {
      const [subsBefore, callsBefore] = [(await subscriptions()).length, (await calls()).length];
      const res = await send();
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.code, 'input.invalid');
      const issues = res.body.issues as { path: string[]; message: string }[];
      const issue = issues.find((i) => i.path.join('\u0001') === path.join('\u0001'));
      assert.ok(issue, JSON.stringify(issues));
      assert.match(issue.message, /NUL character|unpaired surrogate/);
      assert.equal((await subscriptions()).length, subsBefore, 'no subscription stored');
      assert.equal((await calls()).length, callsBefore, 'no call stored');
    });
  }

  it('accents, CJK and emoji are kept as sent in a subscription', async () => {
    const description = 'Café crème – 日本語の説明 – 😀👍🏽';
    const created = await subscribe({ url: 'https://example.com/ü/😀', description });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.description, description);
    const read = await t.request('GET', `/api/v1/webhook-subscriptions/${created.body.id}`, { key: c.key });
    assert.equal(read.body.description, description);
    assert.equal(read.body.url, created.body.url);
    assert.match(read.body.url, /ü\/😀$/);
  });

  it('accents, CJK and emoji are kept as sent in metadata and variables keys and values and external_id', async () => {
    const metadata = { clé: 'valeur 日本 😀', '😀': 'emoji key', 顧客: null };
    const variables = { name: 'José Müller 😀', city: '東京' };
    const externalId = 'réf-日本-😀';
    const res = await placeCall(t, c, { metadata, variables, external_id: externalId });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const row = await t.db
      .selectFrom('calls')
      .select(['metadata', 'variables', 'external_id'])
      .where('id', '=', res.body.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row.metadata, metadata);
    assert.deepEqual(row.variables, variables);
    assert.equal(row.external_id, externalId);
    const read = await t.request('GET', `/api/v1/calls/${res.body.id}`, { key: c.key });
    assert.equal(read.body.external_id, externalId);
  });
});
