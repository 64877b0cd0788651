import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';

/** URLs the router refuses before any route or hook runs; found by the reliability suite's fuzzing. */
describe('URLs the router cannot take', () => {
  let t: TestApp;
  let key: string;
  before(async () => {
    t = await startTestApp();
    key = (await newCustomer(t)).key;
  });
  after(() => t.close());

  for (const [what, path] of [
    ['a path segment longer than the router takes', `/api/v1/calls/${'a'.repeat(500)}`],
    ['a malformed percent-encoding in the path', '/api/v1/calls/%E0%A4%A'],
  ] as const) {
    it(`${what}: 400 input.malformed as problem details with the request id`, async () => {
      const res = await t.request('GET', path, { key });
      assert.equal(res.status, 400);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.equal(res.body.type, 'about:blank');
      assert.equal(res.body.code, 'input.malformed');
      assert.equal(res.body.status, 400);
      assert.match(res.body.request_id, /^[0-9a-f-]{36}$/);
      assert.equal(res.headers['x-request-id'], res.body.request_id);
    });
  }
});
