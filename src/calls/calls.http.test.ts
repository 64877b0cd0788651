import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newUuid } from '../ids.ts';
import { expectedOrder, makeAssistants, makeCalls } from '../testing/calls.fixtures.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { insertCalls } from './calls.repository.ts';

const LIST_FIELDS = [
  'id',
  'direction',
  'status',
  'started_at',
  'answered_at',
  'ended_at',
  'duration_seconds',
  'from_number',
  'to_number',
  'assistant_id',
  'assistant_name',
  'caller_name',
  'external_id',
  'variables',
  'has_transcript',
  'recording_available',
  'created_at',
  'updated_at',
  'livemode',
].sort();
const DETAIL_FIELDS = [
  ...LIST_FIELDS,
  'summary',
  'disconnect_reason',
  'conversation_id',
  'cost',
  'billable_seconds',
].sort();
const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('GET /calls and GET /calls/{id}', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('lists inbound and outbound calls together, newest first, with every field of spec 2.3', async () => {
    const c = await newCustomer(t);
    const assistants = await makeAssistants(t, c.customerId, 2);
    const rows = await makeCalls(t, c.customerId, assistants, 20);
    const res = await t.request('GET', '/api/v1/calls', { key: c.key });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'next_cursor']);
    assert.equal(res.body.next_cursor, null);
    assert.deepEqual(
      res.body.data.map((x: { id: string }) => x.id),
      expectedOrder(rows),
    );
    assert.deepEqual(
      new Set(res.body.data.map((x: { direction: string }) => x.direction)),
      new Set(['inbound', 'outbound']),
    );
    for (const item of res.body.data) {
      assert.deepEqual(Object.keys(item).sort(), LIST_FIELDS);
      const row = rows.find((r) => r.id === item.id);
      assert.ok(row);
      assert.match(item.started_at, ISO_RE);
      assert.match(item.created_at, ISO_RE);
      assert.equal(item.updated_at, new Date(row.updated_at as Date).toISOString());
      assert.equal(item.started_at, new Date(row.started_at as Date).toISOString());
      assert.equal(item.assistant_name, assistants.find((a) => a.id === row.assistant_id)?.name);
      assert.equal(typeof item.duration_seconds, 'number');
      assert.ok(Number.isInteger(item.duration_seconds));
      assert.equal(typeof item.has_transcript, 'boolean');
      assert.equal(typeof item.recording_available, 'boolean');
      assert.equal(item.answered_at === null, row.answered_at === null);
    }
  });

  it('returns the detail shape with typed post-call fields, cost as an exact decimal number', async () => {
    const c = await newCustomer(t);
    const [a] = await makeAssistants(t, c.customerId, 1);
    assert.ok(a);
    const [row] = await makeCalls(t, c.customerId, [a], 1);
    assert.ok(row);
    const id = newUuid();
    await insertCalls(t.db, [
      { ...row, id, status: 'completed', cost_usd: '12345678.1234', billable_seconds: 120 },
    ]);
    const res = await t.request('GET', `/api/v1/calls/${id}`, { key: c.key });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), DETAIL_FIELDS);
    assert.equal(res.body.id, id);
    assert.match(res.text, /"cost":12345678\.1234[,}]/);
    assert.equal(res.body.billable_seconds, 120);
    assert.equal(res.body.summary, row.summary);
    assert.equal(res.body.disconnect_reason, row.disconnect_reason);
    assert.equal(res.body.conversation_id, row.conversation_id);
    assert.equal(res.body.assistant_name, a.name);

    // Trailing zeros of the stored decimal are dropped, nothing else changes.
    await t.db.updateTable('calls').set({ cost_usd: '0.3000' }).where('id', '=', id).execute();
    const small = await t.request('GET', `/api/v1/calls/${id}`, { key: c.key });
    assert.match(small.text, /"cost":0\.3[,}]/);
    await t.db
      .updateTable('calls')
      .set({ cost_usd: null, billable_seconds: null })
      .where('id', '=', id)
      .execute();
    const none = await t.request('GET', `/api/v1/calls/${id}`, { key: c.key });
    assert.equal(none.body.cost, null);
    assert.equal(none.body.billable_seconds, null);
  });

  it("answers 404 resource.not_found for a missing call and for another customer's call", async () => {
    const owner = await newCustomer(t);
    const other = await newCustomer(t);
    const [call] = await makeCalls(t, owner.customerId, await makeAssistants(t, owner.customerId, 1), 1);
    assert.ok(call);
    const theirs = await t.request('GET', `/api/v1/calls/${call.id}`, { key: other.key });
    const missing = await t.request('GET', `/api/v1/calls/${newUuid()}`, { key: other.key });
    for (const res of [theirs, missing]) {
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'resource.not_found');
    }
    assert.equal(theirs.body.detail, missing.body.detail);
    const own = await t.request('GET', `/api/v1/calls/${call.id.toUpperCase()}`, { key: owner.key });
    assert.equal(own.status, 200);
  });

  it('answers 422 for a malformed call id, naming the path parameter', async () => {
    const c = await newCustomer(t);
    const res = await t.request('GET', '/api/v1/calls/not-a-uuid', { key: c.key });
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'input.invalid');
    assert.deepEqual(
      res.body.issues.map((i: { path: string[] }) => i.path),
      [['path', 'id']],
    );
  });

  it('defaults to 25 calls per page', async () => {
    const c = await newCustomer(t);
    await makeCalls(t, c.customerId, await makeAssistants(t, c.customerId, 1), 30);
    const res = await t.request('GET', '/api/v1/calls', { key: c.key });
    assert.equal(res.body.data.length, 25);
    assert.equal(typeof res.body.next_cursor, 'string');
  });
});
