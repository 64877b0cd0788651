import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SCOPES } from '../keys/scopes.ts';
import { createCursorCodec } from '../pagination/cursor.ts';
import { parseInstant } from '../pagination/instant.ts';
import { createSigner } from '../signer.ts';
import { makeAssistants, makeCalls } from '../testing/calls.fixtures.ts';
import { newCustomer, startTestApp, type TestApp, type TestCustomer } from '../testing/test-app.ts';

describe('GET /calls and /calls/{id}: scopes, tenants, cursors', () => {
  let t: TestApp;
  let owner: TestCustomer;
  let callId: string;
  let assistantId: string;
  before(async () => {
    t = await startTestApp();
    owner = await newCustomer(t);
    const assistants = await makeAssistants(t, owner.customerId, 1);
    assistantId = assistants[0]?.id ?? '';
    const rows = await makeCalls(t, owner.customerId, assistants, 12);
    callId = rows[0]?.id ?? '';
  });
  after(() => t.close());

  const paths = () => ['/api/v1/calls', `/api/v1/calls/${callId}`];

  it('answers 403 perm.denied to a key with every scope but read_calls, before validating', async () => {
    const c = await newCustomer(t, { scopes: SCOPES.filter((s) => s !== 'read_calls') });
    for (const path of [...paths(), '/api/v1/calls?limit=0', '/api/v1/calls/not-a-uuid']) {
      const res = await t.request('GET', path, { key: c.key });
      assert.equal(res.status, 403, path);
      assert.equal(res.body.code, 'perm.denied');
    }
  });

  it('read_calls alone is enough', async () => {
    const c = await newCustomer(t, { scopes: ['read_calls'] });
    for (const path of ['/api/v1/calls', '/api/v1/calls/00000000-0000-4000-8000-000000000000']) {
      const res = await t.request('GET', path, { key: c.key });
      assert.notEqual(res.status, 403, path);
    }
  });

  it('answers 401 without a key', async () => {
    for (const path of paths()) {
      const res = await t.request('GET', path);
      assert.equal(res.status, 401);
      assert.equal(res.body.code, 'auth.missing');
    }
  });

  it("never lists another customer's calls", async () => {
    const stranger = await newCustomer(t);
    const res = await t.request('GET', '/api/v1/calls?limit=100', { key: stranger.key });
    assert.deepEqual(res.body, { data: [], next_cursor: null });
    const filtered = await t.request('GET', `/api/v1/calls?assistant_id=${assistantId}`, {
      key: stranger.key,
    });
    assert.deepEqual(filtered.body, { data: [], next_cursor: null });
  });

  async function firstCursor(key: string, query = ''): Promise<string> {
    const res = await t.request('GET', `/api/v1/calls?limit=2${query}`, { key });
    assert.equal(typeof res.body.next_cursor, 'string');
    return res.body.next_cursor;
  }

  async function assertCursorRefused(key: string, query: string): Promise<void> {
    const res = await t.request('GET', `/api/v1/calls?${query}`, { key });
    assert.equal(res.status, 422, `${query}: ${res.text}`);
    assert.equal(res.body.code, 'input.invalid');
    assert.deepEqual(
      res.body.issues.map((i: { path: string[] }) => i.path),
      [['query', 'cursor']],
    );
  }

  it('refuses an altered or truncated cursor with 422 on ["query","cursor"]', async () => {
    const cursor = await firstCursor(owner.key);
    const [body = '', mac = ''] = cursor.split('.');
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    for (const bad of [
      `${flip(body, 5)}.${mac}`,
      `${flip(body, body.length - 2)}.${mac}`,
      `${body}.${flip(mac, 3)}`,
      cursor.slice(0, -1),
      body,
      `${cursor}.x`,
      '!!!.???',
    ]) {
      await assertCursorRefused(owner.key, `cursor=${encodeURIComponent(bad)}`);
    }
  });

  it('refuses a cursor used with other filters than it was issued for', async () => {
    const cursor = await firstCursor(owner.key, '&direction=inbound');
    await assertCursorRefused(owner.key, `cursor=${cursor}`);
    await assertCursorRefused(owner.key, `cursor=${cursor}&direction=outbound`);
    await assertCursorRefused(owner.key, `cursor=${cursor}&direction=inbound&assistant_id=${assistantId}`);
    await assertCursorRefused(owner.key, `cursor=${cursor}&direction=inbound&from=2020-01-01T00:00:00Z`);
    const ok = await t.request('GET', `/api/v1/calls?cursor=${cursor}&direction=inbound&limit=50`, {
      key: owner.key,
    });
    assert.equal(ok.status, 200);
  });

  it("refuses another customer's cursor, and a cursor of another list", async () => {
    const cursor = await firstCursor(owner.key);
    const stranger = await newCustomer(t);
    await assertCursorRefused(stranger.key, `cursor=${cursor}`);
    const assistantsRes = await t.request('GET', '/api/v1/assistants?limit=1', { key: owner.key });
    assert.equal(assistantsRes.status, 200);
    await makeAssistants(t, owner.customerId, 1);
    const twoAssistants = await t.request('GET', '/api/v1/assistants?limit=1', { key: owner.key });
    await assertCursorRefused(owner.key, `cursor=${twoAssistants.body.next_cursor}`);
  });

  it('refuses a well-formed cursor signed with another secret (forged)', async () => {
    const forger = createCursorCodec(createSigner('not-the-server-secret-0123456789abcdef'), 'calls-cursor');
    const at = parseInstant('2030-01-01T00:00:00Z', 'floor');
    assert.ok(at);
    const forged = forger.encode({ at, id: callId }, [owner.customerId, null, null, null, null]);
    await assertCursorRefused(owner.key, `cursor=${forged}`);
  });
});
