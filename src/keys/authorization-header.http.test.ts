import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rawRequest } from '../testing/raw-tls.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';

/** Node keeps only the first Authorization header in `request.headers`; a proxy in front may keep the last. */
describe('exactly one Authorization header', () => {
  let t: TestApp;
  let key: string;
  let other: string;
  before(async () => {
    t = await startTestApp();
    key = (await newCustomer(t)).key;
    other = (await newCustomer(t)).key;
  });
  after(() => t.close());

  const whoami = (authorization: string[]) =>
    rawRequest(
      t.url,
      t.cert,
      ['GET /api/v1/auth/whoami HTTP/1.1', 'Host: localhost', 'Connection: close', ...authorization].join(
        '\r\n',
      ),
    );

  it('one header with a valid key: 200', async () => {
    for (const name of ['Authorization', 'authorization', 'AUTHORIZATION']) {
      const res = await whoami([`${name}: Bearer ${key}`]);
      assert.equal(res.status, 200, name);
    }
  });

  for (const [what, headers] of [
    ['the same valid key twice', () => [`Authorization: Bearer ${key}`, `Authorization: Bearer ${key}`]],
    [
      'two valid keys of two customers',
      () => [`Authorization: Bearer ${key}`, `Authorization: Bearer ${other}`],
    ],
    [
      'a valid key, then garbage',
      () => [`Authorization: Bearer ${key}`, 'Authorization: Basic dXNlcjpwYXNz'],
    ],
    [
      'garbage, then a valid key',
      () => ['Authorization: Basic dXNlcjpwYXNz', `Authorization: Bearer ${key}`],
    ],
    ['a valid key, then an empty header', () => [`Authorization: Bearer ${key}`, 'Authorization:']],
    ['names in different case', () => [`Authorization: Bearer ${key}`, `authorization: Bearer ${key}`]],
  ] as const) {
    it(`${what}: 401 auth.invalid, counted as a failed authentication`, async () => {
      const res = await whoami([...headers()]);
      assert.equal(res.status, 401, res.text);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.equal(res.body.code, 'auth.invalid');
      assert.match(res.body.detail, /Exactly one Authorization header/);
      assert.equal(res.headers['x-ratelimit-limit'], '1000000', 'reported from the failure window');
      assert.ok(Number(res.headers['x-ratelimit-remaining']) < 1_000_000, 'and counted in it');
    });
  }
});
