import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findCall } from '../calls/lifecycle.repository.ts';
import { ANSWERS, advance, BUSY, newCaller, placeCall } from '../testing/outbound.fixtures.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';
import { signCallback, verifyCallback } from './callback-signing.ts';
import { listCallbacks } from './callbacks.repository.ts';
import { findReservation } from './spend.repository.ts';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('POST /outbound-calls', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const fullBody = {
    to_number: ANSWERS,
    callback_url: 'https://hooks.example.com/calls?token=abc',
    metadata: { campaign: 'spring', attempt: 1, vip: true, note: null },
    external_id: 'crm-lead-4711',
    variables: { first_name: 'Ada', appointment_time: 'on Tuesday at 10 am' },
  };

  it('answers 201 with the queued call (spec 2.7) and records it with everything it was given', async () => {
    const c = await newCaller(t);
    const res = await placeCall(t, c, fullBody);
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.id, UUID_RE);
    assert.deepEqual(res.body, {
      id: res.body.id,
      status: 'queued',
      to_number: ANSWERS,
      assistant_id: c.assistant.id,
      from_number: '+14155550102',
      external_id: 'crm-lead-4711',
      created_at: t.clock.now().toISOString(),
      livemode: true,
    });
    assert.equal(res.headers.location, `/api/v1/calls/${res.body.id}`);
    assert.equal(res.headers['idempotent-replayed'], undefined);
    const call = await findCall(t.db, res.body.id);
    assert.equal(call?.customer_id, c.customerId);
    assert.equal(call?.direction, 'outbound');
    assert.equal(call?.api_initiated, true);
    assert.equal(call?.api_key_id, c.keyId);
    assert.deepEqual(call?.variables, fullBody.variables);
    assert.deepEqual(call?.metadata, fullBody.metadata);
    assert.equal(call?.callback_url, fullBody.callback_url);
    assert.deepEqual(await findReservation(t.db, res.body.id), { amount_usd: '0.9000', state: 'reserved' });
    assert.equal(
      (await t.services.simulator.inspect(res.body.id))?.pendingSteps,
      3,
      'the provider has the call',
    );
  });

  it('accepts null for optional fields, as automation platforms send them', async () => {
    const c = await newCaller(t);
    const res = await placeCall(t, c, {
      callback_url: null,
      metadata: null,
      external_id: null,
      variables: null,
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.external_id, null);
  });

  it('settles the reservation to the actual cost and echoes external_id only where the spec says', async () => {
    const c = await newCaller(t);
    const id = (await placeCall(t, c, fullBody)).body.id;
    await advance(t, 900);
    const call = await findCall(t.db, id);
    assert.equal(call?.status, 'completed');
    assert.deepEqual(await findReservation(t.db, id), { amount_usd: call?.cost_usd, state: 'settled' });
    const events = await t.db
      .selectFrom('events')
      .selectAll()
      .where('call_id', '=', id)
      .orderBy('sequence')
      .execute();
    const completed = events.find((e) => e.type === 'call.completed')?.data as Record<string, unknown>;
    assert.deepEqual(Object.keys(completed).sort(), [
      'assistant_id',
      'call_id',
      'conversation_id',
      'cost',
      'direction',
      'disconnect_reason',
      'duration_seconds',
      'ended_at',
      'from',
      'started_at',
      'status',
      'to',
    ]);
    assert.equal(completed.direction, 'outgoing');
    assert.equal(completed.cost, Number(call?.cost_usd));
    assert.equal(typeof completed.cost, 'number');
    assert.ok(!JSON.stringify(completed).includes('crm-lead-4711'), 'never external_id on call.completed');
    const insight = events.find((e) => e.type === 'call.insight.received')?.data as Record<string, unknown>;
    assert.equal(insight.external_id, 'crm-lead-4711');
    assert.deepEqual(insight.variables, fullBody.variables);
    assert.equal(insight.duration_seconds, call?.duration_seconds);
    const insights = insight.insights as { name: string; result: unknown }[];
    assert.deepEqual(
      insights.map((i) => [i.name, Array.isArray(i.result) ? 'array' : typeof i.result]),
      [
        ['call_successful', 'boolean'],
        ['sentiment', 'string'],
        ['quality_score', 'number'],
        ['topics', 'array'],
        ['appointment', 'object'],
      ],
    );
  });

  it('records signed lifecycle callbacks in order: queued, ringing, answered, ended', async () => {
    const c = await newCaller(t);
    const id = (await placeCall(t, c, fullBody)).body.id;
    await advance(t, 900);
    const rows = await listCallbacks(t.db, id);
    assert.deepEqual(
      rows.map((r) => [r.sequence, r.event, r.state, r.url]),
      [
        [1, 'call.queued', 'pending', fullBody.callback_url],
        [2, 'call.ringing', 'pending', fullBody.callback_url],
        [3, 'call.answered', 'pending', fullBody.callback_url],
        [4, 'call.ended', 'pending', fullBody.callback_url],
      ],
    );
    const ended = JSON.parse(rows[3]?.body ?? '{}');
    assert.equal(ended.event, 'call.ended');
    assert.equal(ended.sequence, 4);
    assert.equal(ended.data.status, 'completed');
    assert.equal(ended.data.external_id, 'crm-lead-4711');
    assert.equal(typeof ended.data.cost, 'number');
    const queued = JSON.parse(rows[0]?.body ?? '{}');
    assert.equal(queued.data.status, 'queued');
    assert.equal(queued.data.answered_at, null);

    const { secret } = await t.services.callbackSecrets.secretFor(c.customerId);
    assert.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    const ts = Math.floor(t.clock.now().getTime() / 1000);
    const body = rows[3]?.body ?? '';
    const signature = signCallback(secret, ts, body);
    assert.ok(verifyCallback(secret, { timestamp: String(ts), signature }, body, t.clock.now()));
    assert.ok(!verifyCallback(secret, { timestamp: String(ts), signature }, `${body} `, t.clock.now()));
    const late = new Date(t.clock.now().getTime() + 301_000);
    assert.ok(
      !verifyCallback(secret, { timestamp: String(ts), signature }, body, late),
      '5-minute tolerance',
    );
    const rotated = await t.services.callbackSecrets.rotate(c.customerId);
    assert.notEqual(rotated.secret, secret);
    assert.equal((await t.services.callbackSecrets.secretFor(c.customerId)).secret, rotated.secret);
    assert.ok(!verifyCallback(rotated.secret, { timestamp: String(ts), signature }, body, t.clock.now()));
  });

  it('sends call.ended (status busy) without ringing or answered for a busy line; nothing without a callback_url', async () => {
    const c = await newCaller(t);
    const id = (await placeCall(t, c, { ...fullBody, to_number: BUSY })).body.id;
    const silent = (await placeCall(t, c, { to_number: BUSY })).body.id;
    await advance(t, 60);
    const rows = await listCallbacks(t.db, id);
    assert.deepEqual(
      rows.map((r) => r.event),
      ['call.queued', 'call.ended'],
    );
    assert.equal(JSON.parse(rows[1]?.body ?? '{}').data.status, 'busy');
    assert.deepEqual(await listCallbacks(t.db, silent), []);
  });

  it('answers 502 carrier.unavailable when the provider is down, and leaves nothing behind', async () => {
    const c = await newCaller(t);
    const before = await t.services.simulator.placementCount();
    t.services.simulator.configure({ fault: 'unavailable' });
    try {
      const res = await placeCall(t, c, fullBody);
      assert.equal(res.status, 502, res.text);
      assert.equal(res.body.code, 'carrier.unavailable');
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    } finally {
      t.services.simulator.configure({ fault: 'none' });
    }
    assert.equal(await t.services.simulator.placementCount(), before);
    const calls = await t.db
      .selectFrom('calls')
      .select('id')
      .where('customer_id', '=', c.customerId)
      .execute();
    assert.deepEqual(calls, [], 'no call row');
    const reservations = await t.db
      .selectFrom('spend_reservations')
      .select('call_id')
      .where('customer_id', '=', c.customerId)
      .execute();
    assert.deepEqual(reservations, [], 'no reservation');
    assert.equal((await placeCall(t, c, fullBody)).status, 201, 'a later attempt goes through');
  });
});
