import assert from 'node:assert/strict';
import { after, before, describe, it, mock } from 'node:test';
import { applyProviderEvents } from '../calls/provider-calls.ts';
import { createLogger } from '../logger.ts';
import { signedIn } from '../testing/dashboard.fixtures.ts';
import {
  type FakeConversation,
  type FakeElevenLabs,
  fullTranscriptTurn,
  initiationFailureWebhook,
  startFakeElevenLabs,
  transcriptionWebhook,
} from '../testing/fake-elevenlabs.ts';
import { type Caller, newAssistant, newCaller, placeCall } from '../testing/outbound.fixtures.ts';
import { rawRequest } from '../testing/raw-tls.ts';
import { type Receiver, startReceiver } from '../testing/receiver.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';
import { eventTypesOf, testWorker } from '../testing/webhook.fixtures.ts';
import type { DeliveryWorker } from '../webhooks/delivery-worker.ts';
import { createTranscriptReadyProcessor } from '../webhooks/transcript-ready.ts';
import {
  reconcileMissedCalls,
  resolveUnconfirmedPlacements,
  UNCONFIRMED_AFTER_SECONDS,
} from './reconcile.ts';
import { signatureHeader } from './signature.ts';
import {
  ELEVENLABS_WEBHOOK_PATH,
  WEBHOOK_BODY_LIMIT_BYTES,
  WEBHOOKS_PER_MINUTE_PER_IP,
} from './webhook.routes.ts';

const SERVER_SECRET = 'elevenlabs-contract-secret-0123456789abcdef';
const API_KEY = 'xi-test-key';
const WEBHOOK_SECRET = 'wsec_test_0123456789abcdef';
const AGENT_NUMBER = '+14155550102';
const CUSTOMER_NUMBER = '+14155550199';

describe('PROVIDER=elevenlabs against a local fake of the Agents API (through the SDK)', () => {
  let fake: FakeElevenLabs;
  let t: TestApp;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  let closeWorker: () => Promise<void>;
  let agentSeq = 0;
  /** Subscriptions to remove at the end: their pending deliveries and transcript jobs must not be claimed by another
   * test's worker in the shared test database. */
  const subscriptions: { key: string; id: string }[] = [];

  before(async () => {
    // The adapter loads the SDK on its first request (about 2 s on a slow machine), which would fall inside the
    // 400 ms timeout below when this file runs alone; the whole suite loads it earlier.
    await import('@elevenlabs/elevenlabs-js');
    fake = await startFakeElevenLabs({ apiKey: API_KEY });
    t = await startTestApp({
      serverSecret: SERVER_SECRET,
      provider: {
        kind: 'elevenlabs',
        apiKey: API_KEY,
        webhookSecret: WEBHOOK_SECRET,
        baseUrl: fake.baseUrl,
        timeoutMs: 400,
      },
    });
    fake.useClock(() => t.clock.now());
    receiver = await startReceiver();
    ({ worker, close: closeWorker } = testWorker(t, SERVER_SECRET));
  });
  after(async () => {
    for (const { key, id } of subscriptions) {
      await t.request('DELETE', `/api/v1/webhook-subscriptions/${id}`, { key });
    }
    await closeWorker();
    await receiver.close();
    await t.close();
    await fake.close();
  });

  const elevenlabs = () => {
    const e = t.services.elevenlabs;
    if (!e) throw new Error('PROVIDER=elevenlabs expected');
    return e;
  };
  /** What the ElevenLabs reconciliation passes run with, as the server gives it. */
  const reconcileDeps = () => ({
    db: t.db,
    provider: elevenlabs().provider,
    lifecycle: t.services.lifecycle,
    clock: t.clock,
  });

  /** An agent and a number assigned to it, as the operator set them up in ElevenLabs before linking. */
  function inFake(
    agentId: string,
    phoneNumberId: string,
    e164: string,
    telephony: 'twilio' | 'sip_trunk' = 'twilio',
  ) {
    fake.addAgent(agentId);
    fake.addNumber(phoneNumberId, e164, { agentId, provider: telephony });
  }

  /** A caller whose assistant is linked to a fresh agent, subscribed to every call event unless told not to. */
  async function linkedCaller(
    telephony: 'twilio' | 'sip_trunk' = 'twilio',
    o: { subscribed?: boolean } = {},
  ): Promise<Caller & { agentId: string }> {
    const c = await newCaller(t);
    agentSeq += 1;
    const agentId = `agent_${agentSeq}_${c.customerId.slice(0, 8)}`;
    const phoneNumberId = `phnum_${agentSeq}`;
    inFake(agentId, phoneNumberId, AGENT_NUMBER, telephony);
    await t.services.agentLinks.linkAgent({
      assistantId: c.assistant.id,
      agentId,
      numbers: [{ e164: AGENT_NUMBER, phoneNumberId, telephony }],
    });
    if (o.subscribed === false) return { ...c, agentId };
    const sub = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: c.key,
      body: {
        url: `${receiver.url}/${c.customerId}`,
        events: ['call.completed', 'call.insight.received', 'call.transcript.ready'],
      },
    });
    assert.equal(sub.status, 201, sub.text);
    subscriptions.push({ key: c.key, id: sub.body.id });
    return { ...c, agentId };
  }

  function postWebhook(payload: unknown, o: { at?: Date; secret?: string; raw?: string } = {}) {
    const raw = o.raw ?? JSON.stringify(payload);
    return t.request('POST', ELEVENLABS_WEBHOOK_PATH, {
      rawBody: raw,
      headers: {
        'content-type': 'application/json',
        'elevenlabs-signature': signatureHeader(raw, o.secret ?? WEBHOOK_SECRET, o.at ?? t.clock.now()),
      },
    });
  }

  /** What polling finds for a known call: `GET /v1/convai/conversations/{id}`, applied. */
  async function poll(conversationId: string) {
    const events = await t.services.provider.callEvents(conversationId);
    assert.ok(events.ok, JSON.stringify(events));
    return applyProviderEvents(t.services.lifecycle, events.value);
  }

  const call = (id: string) =>
    t.db.selectFrom('calls').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const eventTypes = (callId: string) => eventTypesOf(t, callId);
  /** Bodies the delivery worker sent for one call, by event type. */
  async function delivered(callId: string): Promise<Record<string, Record<string, unknown>>> {
    await worker.drain();
    const out: Record<string, Record<string, unknown>> = {};
    for (const r of receiver.received) {
      const body = JSON.parse(r.body) as { event: string; data: Record<string, unknown> };
      if (body.data.call_id === callId) out[body.event] = body.data;
    }
    return out;
  }
  const conversationOf = (callId: string): FakeConversation => {
    const c = [...fake.conversations.values()].find((x) => x.user_id === callId);
    assert.ok(c, `a conversation for ${callId}`);
    return c;
  };

  it('outbound, completed: placed through the SDK, settling while processing, then every spec event delivered', async () => {
    const c = await linkedCaller();
    const res = await placeCall(t, c, { to_number: CUSTOMER_NUMBER, variables: { name: 'Ada', visits: 3 } });
    assert.equal(res.status, 201, res.text);
    const id: string = res.body.id;
    const placement = fake.requests.find((r) => r.path === '/v1/convai/twilio/outbound-call');
    assert.deepEqual(placement?.body, {
      agent_id: c.agentId,
      agent_phone_number_id: `phnum_${agentSeq}`,
      to_number: CUSTOMER_NUMBER,
      conversation_initiation_client_data: { user_id: id, dynamic_variables: { name: 'Ada', visits: 3 } },
    });
    const conv = conversationOf(id);
    const tracking = await t.db
      .selectFrom('call_lifecycle')
      .selectAll()
      .where('call_id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(tracking.provider_call_id, conv.conversation_id);
    assert.equal(tracking.carrier_call_id, conv.call_sid);

    t.clock.advance(5_000);
    fake.progress(conv.conversation_id, 'answer');
    await poll(conv.conversation_id);
    assert.equal((await call(id)).status, 'in_progress');
    t.clock.advance(42_000);
    fake.progress(conv.conversation_id, 'hang_up');
    await poll(conv.conversation_id);
    const ended = await call(id);
    assert.equal(ended.status, 'completed');
    assert.equal(ended.duration_seconds, 42);
    assert.equal(await t.services.lifecycle.processDue(), 0, 'processing: the analysis is not ready');
    const settling = await t.request('GET', `/api/v1/calls/${id}/transcript`, { key: c.key });
    assert.equal(settling.status, 202, settling.text);
    assert.equal(settling.body.retry_after_seconds, 10);

    fake.progress(conv.conversation_id, 'analysed');
    const hook = await postWebhook(transcriptionWebhook(conv, t.clock.now()));
    assert.equal(hook.status, 200, hook.text);
    t.clock.advance(600_000);
    assert.equal(await t.services.lifecycle.processDue(), 1);
    const done = await call(id);
    assert.equal(done.cost_usd, '0.0712', "the provider's cost_fiat, as our exact money type");
    assert.equal(done.summary, 'The caller confirmed the appointment.');
    assert.equal(done.disconnect_reason, 'Call ended by remote party');
    assert.deepEqual(await eventTypes(id), ['call.completed', 'call.insight.received']);

    const ready = await t.request('GET', `/api/v1/calls/${id}/transcript`, { key: c.key });
    assert.equal(ready.status, 200, ready.text);
    const processor = createTranscriptReadyProcessor({
      db: t.db,
      clock: t.clock,
      transcripts: t.services.transcripts,
      logger: createLogger('silent'),
    });
    await processor.runOnce();
    const sent = await delivered(id);
    assert.deepEqual(Object.keys(sent).sort(), [
      'call.completed',
      'call.insight.received',
      'call.transcript.ready',
    ]);
    assert.equal(sent['call.completed']?.status, 'completed');
    assert.equal(sent['call.completed']?.cost, 0.0712);
    assert.equal(sent['call.completed']?.conversation_id, conv.conversation_id);
    assert.deepEqual(sent['call.insight.received']?.insights, [
      { name: 'appointment_confirmed', result: true },
      { name: 'evaluation.polite', result: 'success' },
      { name: 'call_successful', result: 'success' },
    ]);
  });

  it('a conversation the SDK refuses for its shape (no has_auxiliary_audio, SDK 2.73): the call ends with its cost, summary, insights and transcript, and the drift is logged and counted', async () => {
    const c = await linkedCaller('twilio', { subscribed: false });
    const id: string = (await placeCall(t, c, { to_number: CUSTOMER_NUMBER })).body.id;
    const conv = conversationOf(id);
    fake.reshape('conversation', (b) => {
      delete b.has_auxiliary_audio;
      return b;
    });
    try {
      fake.progress(conv.conversation_id, 'answer');
      await poll(conv.conversation_id);
      t.clock.advance(30_000);
      fake.progress(conv.conversation_id, 'hang_up');
      fake.progress(conv.conversation_id, 'analysed');
      await poll(conv.conversation_id);
      t.clock.advance(600_000);
      assert.equal(await t.services.lifecycle.processDue(), 1, 'processed at the first try, not postponed');
      const done = await call(id);
      assert.equal(done.cost_usd, '0.0712');
      assert.equal(done.summary, 'The caller confirmed the appointment.');
      assert.deepEqual(await eventTypes(id), ['call.completed', 'call.insight.received']);
      const transcript = await t.request('GET', `/api/v1/calls/${id}/transcript`, { key: c.key });
      assert.equal(transcript.status, 200, transcript.text);
    } finally {
      fake.reshape('conversation', null);
    }
    assert.ok(
      t.logs.some((l) => l.includes('has_auxiliary_audio') && l.includes("does not fit the SDK's model")),
    );
    const metrics = await t.request('GET', '/metrics');
    assert.match(metrics.text, /provider_answer_drift_total\{operation="conversations.get"\} [1-9]/);
    assert.doesNotMatch(
      metrics.text,
      /provider_requests_total\{operation="conversations.get",outcome="unreadable"\}/,
    );
  });

  for (const [reason, status] of [
    ['busy', 'busy'],
    ['no-answer', 'no_answer'],
    ['unknown', 'failed'],
  ] as const) {
    it(`outbound, ${status}: call_initiation_failure (${reason}) ends the call and call.completed is delivered`, async () => {
      const c = await linkedCaller('sip_trunk');
      const res = await placeCall(t, c, { to_number: CUSTOMER_NUMBER });
      assert.equal(res.status, 201, res.text);
      const id: string = res.body.id;
      assert.ok(fake.requests.some((r) => r.path === '/v1/convai/sip-trunk/outbound-call'));
      const hook = await postWebhook(initiationFailureWebhook(conversationOf(id), reason, t.clock.now()));
      assert.equal(hook.status, 200, hook.text);
      assert.equal((await call(id)).status, status);
      await t.services.lifecycle.processDue();
      const done = await call(id);
      assert.equal(done.cost_usd, '0.0000');
      assert.equal(done.disconnect_reason, reason);
      assert.deepEqual(await eventTypes(id), ['call.completed']);
      assert.equal((await delivered(id))['call.completed']?.status, status);
    });
  }

  it('outbound, failed upstream: polling reads `failed` and ends the call', async () => {
    const c = await linkedCaller();
    const id: string = (await placeCall(t, c, { to_number: CUSTOMER_NUMBER })).body.id;
    fake.progress(conversationOf(id).conversation_id, 'failed');
    await poll(conversationOf(id).conversation_id);
    await t.services.lifecycle.processDue();
    assert.equal((await call(id)).status, 'failed');
    assert.equal((await delivered(id))['call.completed']?.status, 'failed');
  });

  async function finishedInbound(agentId: string): Promise<FakeConversation> {
    const conv = fake.inbound(agentId, `phnum_${agentSeq}`, '+12125550123');
    fake.progress(conv.conversation_id, 'answer');
    t.clock.advance(30_000);
    fake.progress(conv.conversation_id, 'hang_up');
    fake.progress(conv.conversation_id, 'analysed');
    return conv;
  }
  const inboundCallFor = (conversationId: string) =>
    t.db
      .selectFrom('call_lifecycle')
      .innerJoin('calls', 'calls.id', 'call_lifecycle.call_id')
      .selectAll('calls')
      .where('call_lifecycle.provider_call_id', '=', conversationId)
      .executeTakeFirst();

  it('inbound, discovered by webhook: the call is created under the linked assistant and finishes', async () => {
    const c = await linkedCaller();
    const conv = await finishedInbound(c.agentId);
    assert.equal((await postWebhook(transcriptionWebhook(conv, t.clock.now()))).status, 200);
    const created = await inboundCallFor(conv.conversation_id);
    assert.ok(created);
    assert.equal(created.direction, 'inbound');
    assert.equal(created.assistant_id, c.assistant.id);
    assert.equal(created.from_number, '+12125550123');
    assert.equal(created.status, 'completed');
    await t.services.lifecycle.processDue();
    const sent = await delivered(created.id);
    assert.equal(sent['call.completed']?.direction, 'incoming');
    assert.ok(sent['call.insight.received']);
  });

  it('inbound, discovered only by polling: the listing finds it, once', async () => {
    const c = await linkedCaller();
    const conv = await finishedInbound(c.agentId);
    const deps = reconcileDeps();
    assert.equal(await reconcileMissedCalls(deps), 1);
    assert.equal(await reconcileMissedCalls(deps), 0, 'a second pass finds nothing new');
    const listing = fake.requests.find((r) =>
      r.path.startsWith(`/v1/convai/conversations?agent_id=${c.agentId}`),
    );
    assert.match(listing?.path ?? '', /call_start_after_unix=\d+/);
    const created = await inboundCallFor(conv.conversation_id);
    assert.equal(created?.status, 'completed');
    await t.services.lifecycle.processDue();
    assert.equal((await delivered(created?.id ?? ''))['call.completed']?.direction, 'incoming');
  });

  it('a pass stopped by the server asks ElevenLabs nothing more; the next pass finds the call', async () => {
    const c = await linkedCaller();
    const conv = await finishedInbound(c.agentId);
    const deps = reconcileDeps();
    const stopping = new AbortController();
    stopping.abort();
    const asked = fake.requests.length;
    assert.equal(await reconcileMissedCalls(deps, stopping.signal), 0);
    assert.equal(await resolveUnconfirmedPlacements(deps, stopping.signal), 0);
    assert.equal(fake.requests.length, asked);
    assert.equal(await inboundCallFor(conv.conversation_id), undefined);
    assert.equal(await reconcileMissedCalls(deps), 1);
  });

  it('the server runs both passes every RECONCILE_INTERVAL_SECONDS', async () => {
    // No subscriber: the call leaves no transcript job behind for the other files' workers.
    const c = await linkedCaller('twilio', { subscribed: false });
    const conv = await finishedInbound(c.agentId);
    const listings = () =>
      fake.requests.filter((r) => r.path.startsWith(`/v1/convai/conversations?agent_id=${c.agentId}`)).length;
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      const loop = elevenlabs().startReconciliation({
        lifecycle: t.services.lifecycle,
        intervalSeconds: 300,
      });
      mock.timers.tick(299_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(listings(), 0, 'not before its interval');
      mock.timers.tick(1_000);
      for (let i = 0; i < 100 && !(await inboundCallFor(conv.conversation_id)); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await loop.stop();
      assert.equal(listings(), 1);
      assert.ok(await inboundCallFor(conv.conversation_id));
      await t.services.lifecycle.processDue();
    } finally {
      mock.timers.reset();
    }
  });

  it('reads every cursor page of the conversation list', async () => {
    const agentId = 'agent_many_conversations';
    const ids = Array.from(
      { length: 120 },
      () => fake.inbound(agentId, 'phnum_many', '+12125550123').conversation_id,
    );
    const before = fake.requests.length;
    const listed = await elevenlabs().provider.conversationsSince(agentId, 0);
    assert.ok(listed.ok);
    assert.deepEqual(new Set(listed.value), new Set(ids));
    const pages = fake.requests
      .slice(before)
      .map((r) => new URL(r.path, 'http://x').searchParams.get('cursor'));
    assert.deepEqual(pages, [null, '100']);
  });

  describe('webhook signature', () => {
    it('refuses a bad, a missing and a stale signature with a problem, and changes nothing', async () => {
      const c = await linkedCaller();
      const id: string = (await placeCall(t, c, { to_number: CUSTOMER_NUMBER })).body.id;
      const payload = initiationFailureWebhook(conversationOf(id), 'busy', t.clock.now());
      const bad = await postWebhook(payload, { secret: 'wsec_someone_else_0123456789' });
      assert.equal(bad.status, 401);
      assert.equal(bad.body.code, 'provider.signature_invalid');
      const stale = await postWebhook(payload, { at: new Date(t.clock.now().getTime() - 10 * 60_000) });
      assert.equal(stale.status, 401);
      assert.match(stale.body.detail, /stale/);
      const future = await postWebhook(payload, { at: new Date(t.clock.now().getTime() + 10 * 60_000) });
      assert.equal(future.status, 401);
      const unsigned = await t.request('POST', ELEVENLABS_WEBHOOK_PATH, {
        rawBody: JSON.stringify(payload),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(unsigned.status, 401);
      assert.match(unsigned.body.detail, /missing/);
      const raw = JSON.stringify(payload);
      const tampered = await t.request('POST', ELEVENLABS_WEBHOOK_PATH, {
        rawBody: raw.replace('busy', 'no-answer'),
        headers: {
          'content-type': 'application/json',
          'elevenlabs-signature': signatureHeader(raw, WEBHOOK_SECRET, t.clock.now()),
        },
      });
      assert.equal(tampered.status, 401);
      assert.equal((await call(id)).status, 'queued', 'no state change');
      const fresh = await postWebhook(payload, { at: new Date(t.clock.now().getTime() - 60_000) });
      assert.equal(fresh.status, 200, 'within the tolerance');
      assert.equal((await call(id)).status, 'busy');
    });

    it('applies a replayed or out-of-order webhook harmlessly', async () => {
      const c = await linkedCaller();
      const id: string = (await placeCall(t, c, { to_number: CUSTOMER_NUMBER })).body.id;
      const conv = conversationOf(id);
      fake.progress(conv.conversation_id, 'answer');
      t.clock.advance(20_000);
      fake.progress(conv.conversation_id, 'hang_up');
      fake.progress(conv.conversation_id, 'analysed');
      const body = JSON.stringify(transcriptionWebhook(conv, t.clock.now()));
      assert.equal((await postWebhook(null, { raw: body })).body.applied, 3);
      assert.equal((await postWebhook(null, { raw: body })).body.applied, 0, 'the replay changes nothing');
      const late = await postWebhook(initiationFailureWebhook(conv, 'busy', t.clock.now()));
      assert.equal(late.status, 200);
      assert.equal(late.body.applied, 0, 'a late failure does not move a finished call');
      await t.services.lifecycle.processDue();
      assert.deepEqual(await eventTypes(id), ['call.completed', 'call.insight.received']);
      assert.equal((await call(id)).status, 'completed');
    });
  });

  describe("a conversation naming another customer's call", () => {
    /** A conversation of `agentId`'s that claims `userId` as its `user_id`: anyone who starts one can choose it. */
    function claiming(agentId: string, userId: string, like: FakeConversation): FakeConversation {
      const forged: FakeConversation = {
        ...like,
        conversation_id: `conv_forged_${fake.conversations.size}`,
        agent_id: agentId,
        user_id: userId,
        status: 'done',
        accepted: like.start,
        call_result: 'answered',
        duration: 30,
      };
      fake.conversations.set(forged.conversation_id, forged);
      return forged;
    }
    const tracking = (id: string) =>
      t.db.selectFrom('call_lifecycle').selectAll().where('call_id', '=', id).executeTakeFirstOrThrow();

    it("a signed webhook from one customer's agent with another customer's call id changes nothing, and is logged", async () => {
      const attacker = await linkedCaller();
      const victim = await linkedCaller();
      const id: string = (await placeCall(t, victim, { to_number: CUSTOMER_NUMBER })).body.id;
      const own = conversationOf(id);
      const forged = claiming(attacker.agentId, id, own);
      const res = await postWebhook(transcriptionWebhook(forged, t.clock.now()));
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.applied, 0);
      assert.equal((await call(id)).status, 'queued', 'the call did not move');
      assert.equal((await tracking(id)).provider_call_id, own.conversation_id, 'its handle is its own');
      assert.ok(
        t.logs.some((l) => l.includes("naming another customer's call") && l.includes(id)),
        'logged with the call id',
      );
      await t.services.lifecycle.processDue();
      assert.deepEqual(await eventTypes(id), [], 'no event for the victim');

      // Nor through reconciliation, which finds the forged conversation among the attacker's agent's.
      await reconcileMissedCalls(reconcileDeps());
      assert.equal((await call(id)).status, 'queued');

      // The other direction: the call's own conversation still moves it.
      fake.progress(own.conversation_id, 'answer');
      const real = await postWebhook(transcriptionWebhook(own, t.clock.now()));
      assert.equal(real.body.applied, 2, real.text);
      assert.equal((await call(id)).status, 'in_progress');
    });

    it("a conversation of the same customer's agent, or the call's own one after the assistant was relinked, still applies", async () => {
      const c = await linkedCaller();
      const id: string = (await placeCall(t, c, { to_number: CUSTOMER_NUMBER })).body.id;
      const own = conversationOf(id);
      inFake(`${c.agentId}_relinked`, `phnum_${agentSeq}`, AGENT_NUMBER);
      await t.services.agentLinks.linkAgent({
        assistantId: c.assistant.id,
        agentId: `${c.agentId}_relinked`,
        numbers: [{ e164: AGENT_NUMBER, phoneNumberId: `phnum_${agentSeq}`, telephony: 'twilio' }],
      });
      fake.progress(own.conversation_id, 'answer');
      const res = await postWebhook(transcriptionWebhook(own, t.clock.now()));
      assert.equal(
        res.body.applied,
        2,
        'its agent links to no assistant now, but it is the call’s own conversation',
      );
      assert.equal((await call(id)).status, 'in_progress');

      const second = await placeCall(t, c, { to_number: CUSTOMER_NUMBER });
      const sibling = await newAssistant(t, c.customerId, { phoneNumbers: ['+14155550104'] });
      inFake(`${c.agentId}_sibling`, `phnum_${agentSeq}_sibling`, '+14155550104');
      await t.services.agentLinks.linkAgent({
        assistantId: sibling.id,
        agentId: `${c.agentId}_sibling`,
        numbers: [{ e164: '+14155550104', phoneNumberId: `phnum_${agentSeq}_sibling`, telephony: 'twilio' }],
      });
      const fromSibling = claiming(`${c.agentId}_sibling`, second.body.id, conversationOf(second.body.id));
      const applied = await postWebhook(transcriptionWebhook(fromSibling, t.clock.now()));
      assert.equal(applied.body.applied, 3, 'an agent of the same customer may report its calls');
    });
  });

  describe('provider failures', () => {
    after(() => fake.fault('none'));

    it('429 too_many_concurrent_requests → 503 carrier.busy with Retry-After; nothing placed or kept', async () => {
      const c = await linkedCaller();
      fake.fault('busy_429');
      const res = await placeCall(t, c, { to_number: CUSTOMER_NUMBER });
      fake.fault('none');
      assert.equal(res.status, 503, res.text);
      assert.equal(res.body.code, 'carrier.busy');
      assert.equal(res.headers['retry-after'], '7');
      const rows = await t.db
        .selectFrom('calls')
        .select('id')
        .where('customer_id', '=', c.customerId)
        .execute();
      assert.deepEqual(rows, []);
    });

    it('500 → 502 carrier.unavailable', async () => {
      const c = await linkedCaller();
      fake.fault('error_500');
      const res = await placeCall(t, c, { to_number: CUSTOMER_NUMBER });
      fake.fault('none');
      assert.equal(res.status, 502, res.text);
      assert.equal(res.body.code, 'carrier.unavailable');
    });

    it('a 500 after ElevenLabs did place the call: the retry with the same Idempotency-Key finds it by our call id', async () => {
      const c = await linkedCaller();
      fake.fault('placed_then_500');
      const first = await placeCall(t, c, { to_number: CUSTOMER_NUMBER }, { idempotencyKey: 'placed-500' });
      fake.fault('none');
      assert.equal(first.status, 502, first.text);
      const placements = () =>
        fake.requests.filter(
          (r) => r.method === 'POST' && (r.body as { agent_id?: string } | null)?.agent_id === c.agentId,
        );
      assert.equal(placements().length, 1);
      const retry = await placeCall(t, c, { to_number: CUSTOMER_NUMBER }, { idempotencyKey: 'placed-500' });
      assert.equal(retry.status, 201, retry.text);
      assert.equal(placements().length, 1, 'found by user_id, not placed again');
      const tracking = await t.db
        .selectFrom('call_lifecycle')
        .selectAll()
        .where('call_id', '=', retry.body.id)
        .executeTakeFirstOrThrow();
      assert.equal(tracking.provider_call_id, conversationOf(retry.body.id).conversation_id);
    });

    it('a hang past our timeout keeps the call queued, never re-placed; reconciliation finds it by our call id', async () => {
      const c = await linkedCaller();
      fake.fault('hang');
      const first = await placeCall(t, c, { to_number: CUSTOMER_NUMBER }, { idempotencyKey: 'hang-1' });
      fake.fault('none');
      assert.equal(first.status, 201, first.text);
      assert.equal(first.body.status, 'queued');
      const id: string = first.body.id;
      const placements = () =>
        fake.requests.filter(
          (r) => r.method === 'POST' && (r.body as { agent_id?: string } | null)?.agent_id === c.agentId,
        );
      assert.equal(placements().length, 1);
      const tracking = () =>
        t.db.selectFrom('call_lifecycle').selectAll().where('call_id', '=', id).executeTakeFirstOrThrow();
      assert.equal((await tracking()).provider_call_id, null, 'pending-unknown: no handle yet');
      const retry = await placeCall(t, c, { to_number: CUSTOMER_NUMBER }, { idempotencyKey: 'hang-1' });
      assert.equal(retry.status, 201);
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.equal(placements().length, 1, 'the retry is a replay, not a second placement');

      const deps = reconcileDeps();
      assert.equal(await resolveUnconfirmedPlacements(deps), 0, 'not before its own request is surely over');
      t.clock.advance((UNCONFIRMED_AFTER_SECONDS + 1) * 1000);
      fake.progress(conversationOf(id).conversation_id, 'answer');
      assert.equal(await resolveUnconfirmedPlacements(deps), 1);
      assert.equal((await tracking()).provider_call_id, conversationOf(id).conversation_id);
      assert.equal((await call(id)).status, 'in_progress');
      assert.equal(placements().length, 1);
    });

    it('a placement that timed out and never reached ElevenLabs ends failed (placement_lost), call.completed delivered', async () => {
      const c = await linkedCaller();
      fake.fault('hang_unplaced');
      const res = await placeCall(t, c, { to_number: CUSTOMER_NUMBER });
      fake.fault('none');
      assert.equal(res.status, 201, res.text);
      const id: string = res.body.id;
      const deps = reconcileDeps();
      t.clock.advance((UNCONFIRMED_AFTER_SECONDS + 1) * 1000);
      assert.equal(await resolveUnconfirmedPlacements(deps), 0, 'ElevenLabs has no conversation for it');
      t.clock.advance(600_000);
      await t.services.lifecycle.reconcile();
      // The test database is shared by every test file of the run: calls of others may be due before this one.
      await t.services.lifecycle.processDue(1_000);
      const ended = await call(id);
      assert.equal(ended.status, 'failed');
      assert.equal(ended.disconnect_reason, 'placement_lost');
      assert.equal((await delivered(id))['call.completed']?.status, 'failed');
    });

    it('an unknown conversation is not_found, and its webhook changes nothing', async () => {
      const got = await t.services.provider.callEvents('conv_nobody_knows');
      assert.equal(got.ok, false);
      assert.equal(got.ok ? null : got.error.code, 'not_found');
      const ghost: FakeConversation = {
        ...(await finishedInbound('agent_not_linked_anywhere')),
      };
      const hook = await postWebhook(transcriptionWebhook(ghost, t.clock.now()));
      assert.equal(hook.status, 200);
      assert.equal(hook.body.applied, 0);
      assert.equal(await inboundCallFor(ghost.conversation_id), undefined);
    });
  });

  it('refuses an outbound call from an assistant not linked to an agent: 422 assistant.not_linked', async () => {
    const c = await newCaller(t);
    const res = await placeCall(t, c, { to_number: CUSTOMER_NUMBER });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.code, 'assistant.not_linked');
    assert.deepEqual(
      await t.db.selectFrom('calls').select('id').where('customer_id', '=', c.customerId).execute(),
      [],
    );
  });

  it(`limits the webhook route to ${WEBHOOKS_PER_MINUTE_PER_IP} requests a minute per source address`, async () => {
    const unsigned = (localAddress: string) =>
      t.request('POST', ELEVENLABS_WEBHOOK_PATH, {
        localAddress,
        rawBody: '{}',
        headers: { 'content-type': 'application/json' },
      });
    for (let sent = 0; sent < WEBHOOKS_PER_MINUTE_PER_IP; sent += 50) {
      const batch = await Promise.all(Array.from({ length: 50 }, () => unsigned('127.0.0.9')));
      assert.deepEqual(new Set(batch.map((r) => r.status)), new Set([401]));
    }
    const over = await unsigned('127.0.0.9');
    assert.equal(over.status, 429);
    assert.equal(over.body.code, 'rate.exceeded_ip');
    assert.ok(Number(over.headers['retry-after']) > 0);
    const signed = [`ElevenLabs-Signature: ${signatureHeader('{}', WEBHOOK_SECRET, t.clock.now())}`];
    const unread = await announceBody(signed, 2_000_000, '127.0.0.9');
    assert.equal(unread.status, 429, 'refused before its body is read, signature or not');
    assert.equal(unread.headers.connection, 'close');
    assert.equal((await unsigned('127.0.0.10')).status, 401, 'another address has its own window');
  });

  it("shows each assistant's agent and agent phone numbers in the dashboard, or that it is not linked", async () => {
    const c = await linkedCaller();
    await newAssistant(t, c.customerId, { phoneNumbers: ['+14155550103'] });
    const { client } = await signedIn(t, c.customerId);
    try {
      const page = await client.get('/dashboard/assistants');
      assert.equal(page.status, 200);
      assert.ok(page.text.includes(c.agentId));
      assert.ok(page.text.includes(`${AGENT_NUMBER} → phnum_${agentSeq} (twilio)`));
      assert.ok(page.text.includes('not linked'));
    } finally {
      await client.close();
    }
  });

  it('takes the transcript of a two-hour call (a turn every 5 s, every field filled) and refuses a body past its limit', async () => {
    assert.equal(WEBHOOK_BODY_LIMIT_BYTES, 3 * 1024 * 1024);
    const c = await linkedCaller();
    const conv = await finishedInbound(c.agentId);
    const payload = transcriptionWebhook(conv, t.clock.now());
    const turns = Array.from({ length: (2 * 3600) / 5 }, (_, i) => fullTranscriptTurn(i));
    const raw = JSON.stringify({ ...payload, data: { ...payload.data, transcript: turns } });
    assert.ok(Buffer.byteLength(raw) > 2 * 1024 * 1024, `${Buffer.byteLength(raw)} bytes`);
    const res = await postWebhook(null, { raw });
    assert.equal(res.status, 200, res.text);
    assert.equal((await inboundCallFor(conv.conversation_id))?.status, 'completed');
    const huge = await postWebhook(null, { raw: 'x'.repeat(WEBHOOK_BODY_LIMIT_BYTES + 1) });
    assert.equal(huge.status, 413);
    assert.equal(huge.body.code, 'input.too_large');
  });

  /** Headers announcing a body of `length` bytes, none of which is ever sent: only an answer before it ends this. */
  function announceBody(headers: string[], length = 2_000_000, localAddress?: string) {
    const head = [
      `POST ${ELEVENLABS_WEBHOOK_PATH} HTTP/1.1`,
      'Host: localhost',
      'Content-Type: application/json',
      `Content-Length: ${length}`,
      ...headers,
    ].join('\r\n');
    return Promise.race([
      rawRequest(t.url, t.cert, head, { localAddress }),
      new Promise<never>((_, reject) =>
        setTimeout(
          () => reject(new Error('no answer while the body was unsent: it waited to read it')),
          10_000,
        ),
      ),
    ]);
  }

  for (const [what, header] of [
    ['no ElevenLabs-Signature', () => null],
    ['a malformed one', () => 't=1,v0=not-hex'],
    ['a stale one', () => signatureHeader('{}', WEBHOOK_SECRET, new Date(t.clock.now().getTime() - 600_000))],
  ] as const) {
    it(`${what}: 401 before a byte of the body is read, and the connection closed`, async () => {
      const value = header();
      const res = await announceBody(value === null ? [] : [`ElevenLabs-Signature: ${value}`]);
      assert.equal(res.status, 401, res.text);
      assert.equal(res.body.code, 'provider.signature_invalid');
      assert.equal(res.headers.connection, 'close');
      assert.equal(res.headers['x-request-id'], res.body.request_id);
    });
  }

  it('a well-formed, fresh header with a body over the limit: 413 before reading it', async () => {
    const res = await announceBody(
      [`ElevenLabs-Signature: ${signatureHeader('{}', WEBHOOK_SECRET, t.clock.now())}`],
      WEBHOOK_BODY_LIMIT_BYTES + 1,
    );
    assert.equal(res.status, 413, res.text);
    assert.equal(res.body.code, 'input.too_large');
  });

  it('needs no API key on the webhook route and is not part of /api/v1', async () => {
    const res = await t.request('POST', ELEVENLABS_WEBHOOK_PATH, {
      rawBody: '{}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'provider.signature_invalid', 'refused for its signature, not for a key');
    for (const raw of ['not json', '{"type":"post_call_transcription"}']) {
      const signed = await postWebhook(null, { raw });
      assert.equal(signed.status, 400, raw);
      assert.equal(signed.body.code, 'provider.payload_invalid');
    }
    const unreadable = await postWebhook(null, { raw: '{"type":"post_call_transcription"}' });
    assert.match(unreadable.body.detail, /event_timestamp is missing/, 'ElevenLabs is told what is missing');
    assert.ok(t.logs.some((l) => l.includes('ElevenLabs webhook refused') && l.includes('event_timestamp')));
    const other = await postWebhook({ type: 'post_call_audio', event_timestamp: 1, data: {} });
    assert.equal(other.status, 200, 'event types we do not use are acknowledged');
    assert.equal(other.body.applied, 0);
  });
});
