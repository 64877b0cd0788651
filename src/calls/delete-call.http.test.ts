import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTOMATION_PRESET } from '../keys/index.ts';
import {
  ANSWERS,
  advance,
  assertProblem,
  type Caller,
  newCaller,
  placeCall,
} from '../testing/outbound.fixtures.ts';
import { type Receiver, startReceiver } from '../testing/receiver.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';
import { subscribe, testWorker } from '../testing/webhook.fixtures.ts';
import { knowsProviderCall } from './provider-calls.ts';

const SECRET = 'delete-call-test-secret-0123456789abcdef';

/** DELETE /calls/{id} through the real HTTPS app: what goes, what stays, and what can no longer make the call again. */
describe('DELETE /calls/{id}', () => {
  let t: TestApp;
  let receiver: Receiver;
  let c: Caller;
  const subscriptions: string[] = [];

  before(async () => {
    t = await startTestApp({ serverSecret: SECRET });
    receiver = await startReceiver();
    c = await newCaller(t);
  });
  after(async () => {
    // Pending deliveries of an active subscription would be due for another test's worker in the shared database.
    for (const id of subscriptions)
      await t.request('DELETE', `/api/v1/webhook-subscriptions/${id}`, { key: c.key });
    await receiver.close();
    await t.close();
  });

  const processing = async (id: string) =>
    (
      await t.db
        .selectFrom('call_lifecycle')
        .select('processing_state')
        .where('call_id', '=', id)
        .executeTakeFirst()
    )?.processing_state;

  /** Moves the clock until the call is ended and post-processed. */
  async function finish(id: string): Promise<void> {
    for (let i = 0; i < 40 && (await processing(id)) !== 'done'; i++) await advance(t, 30);
    assert.equal(await processing(id), 'done', 'the call finished');
  }

  async function finishedCall(body: Record<string, unknown> = {}, idempotencyKey?: string): Promise<string> {
    const res = await placeCall(
      t,
      c,
      { to_number: ANSWERS, ...body },
      idempotencyKey ? { idempotencyKey } : {},
    );
    assert.equal(res.status, 201, res.text);
    await finish(res.body.id);
    return String(res.body.id);
  }

  /** How many rows of each table name the call (events' deliveries and attempts through their events). */
  async function rowsOf(callId: string) {
    const count = async (q: { execute(): Promise<unknown[]> }) => (await q.execute()).length;
    const eventIds = t.db.selectFrom('events').select('id').where('call_id', '=', callId);
    const deliveryIds = t.db.selectFrom('webhook_deliveries').select('id').where('event_id', 'in', eventIds);
    return {
      calls: await count(t.db.selectFrom('calls').select('id').where('id', '=', callId)),
      lifecycle: await count(
        t.db.selectFrom('call_lifecycle').select('call_id').where('call_id', '=', callId),
      ),
      insights: await count(t.db.selectFrom('call_insights').select('name').where('call_id', '=', callId)),
      transcripts: await count(
        t.db.selectFrom('transcripts').select('call_id').where('call_id', '=', callId),
      ),
      events: await count(eventIds),
      deliveries: await count(
        t.db.selectFrom('webhook_deliveries').select('id').where('event_id', 'in', eventIds),
      ),
      attempts: await count(
        t.db.selectFrom('webhook_attempts').select('id').where('delivery_id', 'in', deliveryIds),
      ),
      transcriptJobs: await count(
        t.db.selectFrom('transcript_jobs').select('call_id').where('call_id', '=', callId),
      ),
      callbacks: await count(
        t.db.selectFrom('callback_notifications').select('id').where('call_id', '=', callId),
      ),
      spend: await count(
        t.db.selectFrom('spend_reservations').select('call_id').where('call_id', '=', callId),
      ),
      tombstones: await count(
        t.db.selectFrom('deleted_calls').select('call_id').where('call_id', '=', callId),
      ),
    };
  }

  it('deletes a finished call with its transcript, insights, events, pending deliveries, attempts and callbacks; 404 after', async () => {
    const sub = await subscribe(t, c, `${receiver.url}/hooks`, [
      'call.completed',
      'call.insight.received',
      'call.transcript.ready',
    ]);
    subscriptions.push(sub.id);
    const id = await finishedCall({ callback_url: `${receiver.url}/callback` });
    // A transcript stored, and a first failed attempt of each delivery (still pending, its answer's start kept).
    let transcript = await t.request('GET', `/api/v1/calls/${id}/transcript`, { key: c.key });
    for (let i = 0; i < 10 && transcript.status === 202; i++) {
      await advance(t, 30);
      transcript = await t.request('GET', `/api/v1/calls/${id}/transcript`, { key: c.key });
    }
    assert.equal(transcript.status, 200, transcript.text);
    receiver.reply = () => ({ status: 500, body: 'the receiver echoes the call: +14155550199' });
    const { worker, close } = testWorker(t, SECRET);
    try {
      await worker.drain();
    } finally {
      await close();
    }
    const before = await rowsOf(id);
    assert.deepEqual(
      { ...before, insights: before.insights > 0, callbacks: before.callbacks > 0 },
      {
        calls: 1,
        lifecycle: 1,
        insights: true,
        transcripts: 1,
        events: 2,
        deliveries: 2,
        attempts: 2,
        transcriptJobs: 1,
        callbacks: true,
        spend: 1,
        tombstones: 0,
      },
    );
    const pending = await t.db
      .selectFrom('webhook_deliveries')
      .select('status')
      .where('subscription_id', '=', sub.id)
      .execute();
    assert.ok(
      pending.length >= 2 && pending.every((d) => d.status === 'pending'),
      'deliveries still pending',
    );

    const res = await t.request('DELETE', `/api/v1/calls/${id}`, { key: c.key });
    assert.equal(res.status, 204, res.text);
    assert.equal(res.text, '', 'no body');

    assert.deepEqual(await rowsOf(id), {
      calls: 0,
      lifecycle: 0,
      insights: 0,
      transcripts: 0,
      events: 0,
      deliveries: 0,
      attempts: 0,
      transcriptJobs: 0,
      callbacks: 0,
      // Billing, not call content: it still counts against the key's daily cap.
      spend: 1,
      tombstones: 1,
    });
    assertProblem(await t.request('GET', `/api/v1/calls/${id}`, { key: c.key }), 404, 'resource.not_found');
    assertProblem(
      await t.request('DELETE', `/api/v1/calls/${id}`, { key: c.key }),
      404,
      'resource.not_found',
    );
    assertProblem(
      await t.request('GET', `/api/v1/calls/${id}/transcript`, { key: c.key }),
      404,
      'resource.not_found',
    );
    const listed = await t.request('GET', '/api/v1/calls?limit=100', { key: c.key });
    assert.ok(!listed.body.data.some((call: { id: string }) => call.id === id), 'not listed');
  });

  it('refuses a call still going on, and one ended but still being processed (409 call.in_progress)', async () => {
    const placed = await placeCall(t, c, { to_number: ANSWERS });
    const id = String(placed.body.id);
    await advance(t, 1);
    const ringing = await t.request('DELETE', `/api/v1/calls/${id}`, { key: c.key });
    assertProblem(ringing, 409, 'call.in_progress');
    assert.match(ringing.body.detail, /still going on \(status (ringing|in_progress)\)/);

    // The provider cannot be read: the call ends, its post-processing is postponed.
    t.services.simulator.configure({ fault: 'unavailable' });
    try {
      for (let i = 0; i < 40 && (await processing(id)) === 'none'; i++) await advance(t, 30);
      assert.equal(await processing(id), 'pending');
      const processing409 = await t.request('DELETE', `/api/v1/calls/${id}`, { key: c.key });
      assertProblem(processing409, 409, 'call.in_progress');
      assert.match(processing409.body.detail, /still being processed/);
    } finally {
      t.services.simulator.configure({ fault: 'none' });
    }
    assert.equal((await rowsOf(id)).calls, 1, 'nothing deleted');

    await finish(id);
    assert.equal((await t.request('DELETE', `/api/v1/calls/${id}`, { key: c.key })).status, 204);
  });

  it("answers another customer's call as missing, and refuses a key without outbound_calls (403)", async () => {
    const id = await finishedCall();
    const stranger = await newCaller(t);
    assertProblem(
      await t.request('DELETE', `/api/v1/calls/${id}`, { key: stranger.key }),
      404,
      'resource.not_found',
    );
    const { secret: readOnly } = await t.services.keys.createKey({
      customerId: c.customerId,
      name: 'automation',
      scopes: AUTOMATION_PRESET,
    });
    assertProblem(await t.request('DELETE', `/api/v1/calls/${id}`, { key: readOnly }), 403, 'perm.denied');
    assert.equal((await rowsOf(id)).calls, 1, 'still there');
    assert.equal((await t.request('GET', `/api/v1/calls/${id}`, { key: c.key })).status, 200);
    const missing = '00000000-0000-4000-8000-000000000000';
    assertProblem(
      await t.request('DELETE', `/api/v1/calls/${missing}`, { key: c.key }),
      404,
      'resource.not_found',
    );
    assertProblem(await t.request('DELETE', '/api/v1/calls/nope', { key: c.key }), 422, 'input.invalid');
  });

  it('a late provider event of a deleted call changes nothing, and reconciliation does not find it again', async () => {
    const id = await finishedCall();
    const tracking = await t.db
      .selectFrom('call_lifecycle')
      .select('provider_call_id')
      .where('call_id', '=', id)
      .executeTakeFirstOrThrow();
    const providerCallId = tracking.provider_call_id ?? '';
    assert.ok(providerCallId);
    assert.equal((await t.request('DELETE', `/api/v1/calls/${id}`, { key: c.key })).status, 204);

    const at = t.clock.now();
    const lifecycle = t.services.lifecycle;
    assert.equal(
      await lifecycle.applyProviderEvent({
        type: 'call.ended',
        providerCallId,
        callId: id,
        status: 'completed',
        disconnectReason: 'caller_hangup',
        at,
      }),
      'ignored',
    );
    assert.equal(
      await lifecycle.applyProviderEvent({ type: 'call.ringing', providerCallId, callId: null, at }),
      'ignored',
    );
    // The provider's word that a call came in with this handle (a webhook redelivered, a reconciliation pass).
    assert.equal(
      await lifecycle.applyProviderEvent({
        type: 'call.inbound',
        providerCallId,
        assistantId: c.assistant.id,
        from: ANSWERS,
        to: c.assistant.phone_numbers[0] ?? '',
        callerName: null,
        at,
      }),
      'ignored',
    );
    await advance(t, 60);
    await lifecycle.reconcile();
    const left = await rowsOf(id);
    assert.deepEqual([left.calls, left.lifecycle, left.events, left.tombstones], [0, 0, 0, 1]);
    const again = await t.db
      .selectFrom('call_lifecycle')
      .select('call_id')
      .where('provider_call_id', '=', providerCallId)
      .execute();
    assert.deepEqual(again, [], 'no call carries the handle again');
    assert.equal(await knowsProviderCall(t.db, providerCallId), true, 'reconciliation skips it');
  });

  it('a test-mode inbound call is deleted under the test key, and its late inbound event does not make it again', async () => {
    const { secret: testKey } = await t.services.keys.createKey({
      customerId: c.customerId,
      name: 'test',
      scopes: ['read_calls', 'outbound_calls'],
      mode: 'test',
    });
    const made = await t.request('POST', '/api/v1/test/inbound-calls', {
      key: testKey,
      body: { assistant_id: c.assistant.id },
    });
    assert.equal(made.status, 201, made.text);
    const id = String(made.body.id);
    await finish(id);
    assertProblem(
      await t.request('DELETE', `/api/v1/calls/${id}`, { key: c.key }),
      404,
      'resource.not_found',
    );
    const tracking = await t.db
      .selectFrom('call_lifecycle')
      .select('provider_call_id')
      .where('call_id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal((await t.request('DELETE', `/api/v1/calls/${id}`, { key: testKey })).status, 204);
    const replayed = await t.services.lifecycle.applyProviderEvent({
      type: 'call.inbound',
      providerCallId: tracking.provider_call_id ?? '',
      assistantId: c.assistant.id,
      from: ANSWERS,
      to: c.assistant.phone_numbers[0] ?? '',
      callerName: null,
      at: t.clock.now(),
    });
    assert.equal(replayed, 'ignored');
    assert.equal((await rowsOf(id)).calls, 0);
  });

  it('a retried POST with the Idempotency-Key that placed a deleted call is refused, never placed again', async () => {
    const key = `delete-then-retry-${Date.now()}`;
    const body = { external_id: 'order-7' };
    const id = await finishedCall(body, key);
    const stored = () =>
      t.db
        .selectFrom('idempotency_keys')
        .select(['state', 'response_body'])
        .where('customer_id', '=', c.customerId)
        .where('key', '=', key)
        .executeTakeFirstOrThrow();
    assert.match((await stored()).response_body ?? '', new RegExp(ANSWERS.replace('+', '\\+')));
    const replay = await placeCall(t, c, { to_number: ANSWERS, ...body }, { idempotencyKey: key });
    assert.equal(replay.status, 201, 'replayed before the deletion');
    assert.equal(replay.body.id, id);

    assert.equal((await t.request('DELETE', `/api/v1/calls/${id}`, { key: c.key })).status, 204);
    assert.deepEqual(
      await stored(),
      { state: 'resource_deleted', response_body: null },
      'the number is gone',
    );
    const count = async () =>
      (await t.db.selectFrom('calls').select('id').where('customer_id', '=', c.customerId).execute()).length;
    const calls = await count();
    const retry = await placeCall(t, c, { to_number: ANSWERS, ...body }, { idempotencyKey: key });
    assertProblem(retry, 409, 'resource.conflict');
    assert.match(retry.body.detail, /deleted/);
    assert.equal(await count(), calls, 'nothing placed');
    assert.equal((await t.request('GET', `/api/v1/calls/${id}`, { key: c.key })).status, 404);
  });

  it("keeps the deleted call's cost in the key's daily spend", async () => {
    const spent = async (): Promise<string> => {
      const dryRun = await t.request('POST', '/api/v1/outbound-calls/dry-run', {
        key: c.key,
        body: { assistant_id: c.assistant.id, to_number: ANSWERS },
      });
      return String(dryRun.body.spend.used_today_usd);
    };
    const id = await finishedCall();
    const before = await spent();
    assert.notEqual(Number(before), 0, 'the call cost something');
    assert.equal((await t.request('DELETE', `/api/v1/calls/${id}`, { key: c.key })).status, 204);
    assert.equal(await spent(), before);
  });
});
