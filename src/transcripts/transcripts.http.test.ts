import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findCall } from '../calls/lifecycle.repository.ts';
import { advance, BUSY, type Caller, newCaller, placeCall } from '../testing/outbound.fixtures.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { transcriptReadyData } from './transcripts.service.ts';

describe('GET /calls/{id}/transcript and GET /outbound-calls/{id}/transcript', () => {
  let t: TestApp;
  let c: Caller;
  const settle = 20;
  before(async () => {
    t = await startTestApp();
    t.services.simulator.configure({ settleSeconds: settle });
    c = await newCaller(t);
  });
  after(() => t.close());

  const get = (id: string, key = c.key) => t.request('GET', `/api/v1/calls/${id}/transcript`, { key });
  const getOutbound = (id: string, key = c.key) =>
    t.request('GET', `/api/v1/outbound-calls/${id}/transcript`, { key });

  /** An answered call that has just ended (its transcript settling). */
  async function endedCall(): Promise<string> {
    const id = (await placeCall(t, c)).body.id;
    for (let i = 0; i < 900 && (await findCall(t.db, id))?.status !== 'completed'; i++) await advance(t, 1);
    return id;
  }

  it('answers 202 pending while the transcript settles, then fetches, stores and returns it (200)', async () => {
    const id = await endedCall();
    const pending = await get(id);
    assert.equal(pending.status, 202, pending.text);
    const call = await findCall(t.db, id);
    assert.deepEqual(pending.body, {
      status: 'pending',
      call_id: id,
      conversation_id: call?.conversation_id,
      retry_after_seconds: settle,
      detail: pending.body.detail,
    });
    assert.match(pending.body.detail, /call\.transcript\.ready/);
    assert.equal(pending.headers['retry-after'], undefined, 'Retry-After is for 429 only (spec 4)');

    await advance(t, settle);
    const ready = await get(id);
    assert.equal(ready.status, 200, ready.text);
    assert.deepEqual(Object.keys(ready.body).sort(), ['call_id', 'conversation_id', 'transcript']);
    assert.equal(ready.body.call_id, id);
    assert.equal(ready.body.conversation_id, call?.conversation_id);
    const script = (await t.services.simulator.inspect(id))?.script;
    const segments = ready.body.transcript.segments as { speaker: string; text: string; timestamp: string }[];
    assert.deepEqual(
      segments.map((s) => s.text),
      script?.turns.map((turn) => turn.message),
    );
    assert.deepEqual(new Set(segments.map((s) => s.speaker)), new Set(['assistant', 'caller']));
    assert.equal(segments[0]?.timestamp, new Date((call?.answered_at?.getTime() ?? 0) + 1000).toISOString());
    assert.equal(ready.body.transcript.full_text.split('\n')[0], `Assistant: ${segments[0]?.text}`);
    const stored = await t.db
      .selectFrom('transcripts')
      .selectAll()
      .where('call_id', '=', id)
      .executeTakeFirst();
    assert.equal(stored?.conversation_id, call?.conversation_id);
  });

  it('serves a stored transcript without the provider, even while it is down', async () => {
    const id = await endedCall();
    await advance(t, settle);
    const first = await get(id);
    assert.equal(first.status, 200);
    t.services.simulator.configure({ fault: 'unavailable' });
    try {
      const again = await get(id);
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, first.body);
    } finally {
      t.services.simulator.configure({ fault: 'none' });
    }
  });

  it('answers 502 carrier.unavailable when a transcript must be fetched and the provider is down', async () => {
    const id = await endedCall();
    await advance(t, settle);
    t.services.simulator.configure({ fault: 'unavailable' });
    try {
      const res = await get(id);
      assert.equal(res.status, 502, res.text);
      assert.equal(res.body.code, 'carrier.unavailable');
    } finally {
      t.services.simulator.configure({ fault: 'none' });
    }
    assert.equal((await get(id)).status, 200, 'and succeeds once it is back');
  });

  it('answers 404 transcript.not_found for a call that ended without a conversation', async () => {
    const id = (await placeCall(t, c, { to_number: BUSY })).body.id;
    await advance(t, 10);
    const res = await get(id);
    assert.equal(res.status, 404, res.text);
    assert.equal(res.body.code, 'transcript.not_found');
  });

  it('answers 202 for a call that has not been answered yet', async () => {
    const id = (await placeCall(t, c)).body.id;
    const res = await get(id);
    assert.equal(res.status, 202);
    assert.equal(res.body.conversation_id, null);
    assert.equal(res.body.retry_after_seconds, 15);
  });

  it('serves the outbound route for API-placed calls only, with read_analytics', async () => {
    const id = await endedCall();
    await advance(t, settle);
    const ok = await getOutbound(id);
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.body, (await get(id)).body, 'same shape as GET /calls/{id}/transcript');

    await t.services.simulator.simulateInbound({
      assistantId: c.assistant.id,
      to: '+14155550102',
      from: '+12125550123',
      callerName: null,
      language: 'en-US',
      outcome: 'completed',
    });
    await advance(t, 900);
    const inbound = await t.db
      .selectFrom('calls')
      .select('id')
      .where('customer_id', '=', c.customerId)
      .where('direction', '=', 'inbound')
      .executeTakeFirstOrThrow();
    const res = await getOutbound(inbound.id);
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'resource.not_found');
    assert.notEqual((await get(inbound.id)).status, 404, 'the inbound call has a transcript on /calls');

    const callsOnly = await t.services.keys.createKey({
      customerId: c.customerId,
      name: 'calls',
      scopes: ['read_calls'],
    });
    assert.equal((await getOutbound(id, callsOnly.secret)).body.code, 'perm.denied');
    assert.equal((await get(id, callsOnly.secret)).status, 200);
    const analyticsOnly = await t.services.keys.createKey({
      customerId: c.customerId,
      name: 'analytics',
      scopes: ['read_analytics'],
    });
    assert.equal((await get(id, analyticsOnly.secret)).body.code, 'perm.denied');
  });

  it("hides other customers' calls (404) and refuses malformed ids (422)", async () => {
    const id = await endedCall();
    const stranger = await newCustomer(t);
    assert.equal((await get(id, stranger.key)).body.code, 'resource.not_found');
    assert.equal((await getOutbound(id, stranger.key)).body.code, 'resource.not_found');
    const bad = await get('not-a-uuid');
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.issues[0].path, ['path', 'id']);
  });

  it('gives the webhooks issue values, never exceptions: pending, unavailable, stored, absent', async () => {
    const transcripts = t.services.transcripts;
    const id = await endedCall();
    const pending = await transcripts.fetchAndStore(c.customerId, id);
    assert.equal(pending.state, 'pending');
    await advance(t, settle);
    t.services.simulator.configure({ fault: 'unavailable' });
    try {
      const down = await transcripts.fetchAndStore(c.customerId, id);
      assert.deepEqual(down.state === 'unavailable' && down.retryable, true);
    } finally {
      t.services.simulator.configure({ fault: 'none' });
    }
    const stored = await transcripts.fetchAndStore(c.customerId, id);
    assert.ok(stored.state === 'stored');
    const call = await findCall(t.db, id);
    assert.equal(call?.has_transcript, true);
    const data = transcriptReadyData(stored.transcript);
    assert.deepEqual(Object.keys(data).sort(), [
      'assistant_id',
      'call_id',
      'conversation_id',
      'duration_seconds',
      'language',
      'transcript',
      'truncated',
    ]);
    assert.equal(data.language, 'en-US');
    assert.equal(data.duration_seconds, call?.duration_seconds);
    assert.equal(data.truncated, false);
    const webhook = data.transcript as {
      format: string;
      segments: { role: string; ts: string }[];
      plain_text: string;
    };
    assert.equal(webhook.format, 'segments');
    assert.deepEqual(new Set(webhook.segments.map((s) => s.role)), new Set(['assistant', 'user']));
    assert.equal(webhook.plain_text, stored.transcript.rest.full_text);
    assert.deepEqual(await transcripts.fetchAndStore(c.customerId, crypto.randomUUID()), {
      state: 'absent',
      reason: 'no_call',
    });
  });
});
