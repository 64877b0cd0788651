import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ANSWERS,
  assertProblem,
  type Caller,
  newAssistant,
  newCaller,
  placeCall,
} from '../testing/outbound.fixtures.ts';
import { newCustomer, startTestApp, type TestApp, type TestResponse } from '../testing/test-app.ts';

const issuePaths = (res: TestResponse): string[] =>
  (res.body.issues as { path: string[] }[]).map((i) => i.path.join('.'));

describe('POST /outbound-calls: every rejection happens before the provider', () => {
  let t: TestApp;
  let c: Caller;
  let placementsBefore: number;
  before(async () => {
    t = await startTestApp();
    c = await newCaller(t);
    placementsBefore = await t.services.simulator.placementCount();
  });
  after(async () => {
    assert.equal(
      await t.services.simulator.placementCount(),
      placementsBefore,
      'no rejected request reached the provider',
    );
    const rows = await t.db
      .selectFrom('calls')
      .select('id')
      .where('customer_id', '=', c.customerId)
      .execute();
    assert.deepEqual(rows, [], 'and none left a call behind');
    await t.close();
  });

  it('requires assistant_id and to_number, and refuses unknown fields', async () => {
    const res = await t.request('POST', '/api/v1/outbound-calls', { key: c.key, body: { extra: 1 } });
    assertProblem(res, 422, 'input.invalid');
    assert.deepEqual(issuePaths(res).sort(), ['body.assistant_id', 'body.extra', 'body.to_number']);
  });

  it('refuses a malformed assistant_id with 422, not 404', async () => {
    const res = await placeCall(t, { ...c, assistant: { ...c.assistant, id: 'not-a-uuid' } });
    assertProblem(res, 422, 'input.invalid');
    assert.deepEqual(issuePaths(res), ['body.assistant_id']);
  });

  const badNumbers = [
    '4155550199', // no +
    '+1 415 555 0199', // formatting
    '+1-415-555-0199',
    '+14155550199x12',
    '+0123456789',
    '+1415555019', // too short for NANP
    '+141555501999', // too long for NANP
    '+4420718387', // GB, too short
    '+3314268530000', // FR, too long
    '+49301', // DE, too short
    '+9198765', // IN, too short
    '+8190123456789', // JP, too long
    '+55119876', // BR, too short
    '+447700900123', // GB drama range, not valid
    '+15555550100', // NANP area code 555 does not exist
    '+999123456789', // no such country code
    '',
  ];
  for (const bad of badNumbers) {
    it(`refuses the invalid number ${JSON.stringify(bad)} with 422 on body.to_number`, async () => {
      const res = await placeCall(t, c, { to_number: bad });
      assertProblem(res, 422, 'input.invalid');
      assert.deepEqual(issuePaths(res), ['body.to_number']);
    });
  }

  const foreign = [
    ['+442071838750', 'GB'],
    ['+33142685300', 'FR'],
    ['+4930123456', 'DE'],
    ['+919876543210', 'IN'],
    ['+61291234567', 'AU'],
    ['+819012345678', 'JP'],
    ['+5511987654321', 'BR'],
    ['+18765550123', 'JM'], // +1 but not US or CA
  ];
  for (const [number, country] of foreign) {
    it(`refuses a valid ${country} number outside the default allowlist with 403 outbound.country_not_allowed`, async () => {
      const res = await placeCall(t, c, { to_number: number });
      assertProblem(res, 403, 'outbound.country_not_allowed');
      assert.match(res.body.detail, new RegExp(`${country}.*US, CA`));
    });
  }

  it('refuses premium-rate numbers even inside the allowlist', async () => {
    assertProblem(await placeCall(t, c, { to_number: '+19005550100' }), 403, 'outbound.number_not_allowed');
  });

  it("answers 404 for another customer's assistant, exactly as for a missing one", async () => {
    const other = await newCaller(t);
    const theirs = await placeCall(t, { key: c.key, assistant: other.assistant });
    assertProblem(theirs, 404, 'resource.not_found');
    const missing = await placeCall(t, {
      key: c.key,
      assistant: { ...c.assistant, id: crypto.randomUUID() },
    });
    assertProblem(missing, 404, 'resource.not_found');
    assert.equal(theirs.body.detail, missing.body.detail);
  });

  it('refuses an inactive assistant and one without a phone number with 422', async () => {
    const inactive = await newAssistant(t, c.customerId, { isActive: false });
    assertProblem(
      await placeCall(t, { key: c.key, assistant: inactive }),
      422,
      'outbound.assistant_inactive',
    );
    const mute = await newAssistant(t, c.customerId, { phoneNumbers: [] });
    assertProblem(
      await placeCall(t, { key: c.key, assistant: mute }),
      422,
      'outbound.assistant_no_phone_number',
    );
  });

  it('refuses a spend cap of zero with 402 outbound.spend_cap_exceeded', async () => {
    const broke = await t.services.keys.createKey({
      customerId: c.customerId,
      name: 'no budget',
      scopes: ['outbound_calls'],
      dailySpendCapUsd: '0',
    });
    const res = await placeCall(t, { key: broke.secret, assistant: c.assistant });
    assertProblem(res, 402, 'outbound.spend_cap_exceeded');
    assert.match(res.body.detail, /\$0\.00.*resets at \d{4}-\d{2}-\d{2}T00:00:00\.000Z/);
  });

  const badFields: [string, Record<string, unknown>, string][] = [
    [
      'a callback_url that is not http(s)',
      { callback_url: 'ftp://hooks.example.com/x' },
      'body.callback_url',
    ],
    [
      'callback_url with credentials',
      { callback_url: 'https://user:pw@hooks.example.com/x' },
      'body.callback_url',
    ],
    ['relative callback_url', { callback_url: '/hooks' }, 'body.callback_url'],
    [
      'overlong callback_url',
      { callback_url: `https://h.example.com/${'a'.repeat(2048)}` },
      'body.callback_url',
    ],
    ['empty external_id', { external_id: '' }, 'body.external_id'],
    ['overlong external_id', { external_id: 'x'.repeat(256) }, 'body.external_id'],
    ['external_id with a control character', { external_id: 'a\nb' }, 'body.external_id'],
    ['numeric external_id', { external_id: 42 }, 'body.external_id'],
    ['variables as an array', { variables: ['a'] }, 'body.variables'],
    ['a nested variable', { variables: { name: { first: 'Ada' } } }, 'body.variables.name'],
    ['a badly named variable', { variables: { 'first-name': 'Ada' } }, 'body.variables.first-name'],
    [
      'too many variables',
      { variables: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`v${i}`, i])) },
      'body.variables',
    ],
    ['metadata as a string', { metadata: 'x' }, 'body.metadata'],
    ['nested metadata', { metadata: { a: { b: 1 } } }, 'body.metadata.a'],
    ['an overlong metadata key', { metadata: { ['k'.repeat(41)]: 1 } }, `body.metadata.${'k'.repeat(41)}`],
  ];
  for (const [what, body, path] of badFields) {
    it(`refuses ${what} with 422 on ${path.slice(0, 40)}`, async () => {
      const res = await placeCall(t, c, body);
      assertProblem(res, 422, 'input.invalid');
      assert.deepEqual(issuePaths(res), [path]);
    });
  }

  it('refuses ?dry_run values other than true/false and unknown query parameters', async () => {
    assertProblem(await placeCall(t, c, {}, { query: '?dry_run=yes' }), 422, 'input.invalid');
    assertProblem(await placeCall(t, c, {}, { query: '?force=1' }), 422, 'input.invalid');
  });

  it('needs Content-Type: application/json, the outbound_calls scope and a key', async () => {
    const raw = JSON.stringify({ assistant_id: c.assistant.id, to_number: ANSWERS });
    const text = await t.request('POST', '/api/v1/outbound-calls', {
      key: c.key,
      rawBody: raw,
      headers: { 'content-type': 'text/plain' },
    });
    assertProblem(text, 415, 'input.unsupported_media_type');
    const reader = await newCustomer(t, { scopes: ['read_calls', 'read_analytics'] });
    assertProblem(await placeCall(t, { key: reader.key, assistant: c.assistant }), 403, 'perm.denied');
    assertProblem(await t.request('POST', '/api/v1/outbound-calls', { body: {} }), 401, 'auth.missing');
  });
});
