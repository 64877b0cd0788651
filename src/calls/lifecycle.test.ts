import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ANSWERS, advance, BUSY, newCaller, placeCall } from '../testing/outbound.fixtures.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';
import { findCall } from './lifecycle.repository.ts';
import { MAX_PROCESSING_ATTEMPTS } from './post-process.ts';

describe('call lifecycle (simulator on a ManualClock)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const status = async (id: string) => (await findCall(t.db, id))?.status;
  const events = (callId: string) =>
    t.db.selectFrom('events').selectAll().where('call_id', '=', callId).orderBy('sequence').execute();

  it('moves an answered outbound call queued → ringing → in_progress → completed, then post-processes it', async () => {
    const c = await newCaller(t);
    const res = await placeCall(t, c, { to_number: ANSWERS });
    assert.equal(res.status, 201, res.text);
    const id = res.body.id;
    const placedAt = t.clock.now();
    const plan = await t.services.simulator.inspect(id);
    assert.ok(plan);
    assert.equal(await status(id), 'queued');
    await advance(t, 1);
    assert.equal(await status(id), 'ringing');
    for (let i = 0; i < 20 && (await status(id)) === 'ringing'; i++) await advance(t, 1);
    const answered = await findCall(t.db, id);
    assert.equal(answered?.status, 'in_progress');
    assert.match(answered?.conversation_id ?? '', /^conv_[0-9a-f]{32}$/);
    assert.equal(answered?.cost_usd, null, 'no cost before the call ends');
    assert.deepEqual(await events(id), [], 'no event before post-processing');

    await advance(t, plan.script.details.durationSeconds);
    const done = await findCall(t.db, id);
    assert.ok(done?.answered_at && done.ended_at);
    assert.equal(done.status, 'completed');
    assert.equal(done.started_at.getTime(), placedAt.getTime());
    assert.equal(done.duration_seconds, plan.script.details.durationSeconds);
    assert.equal((done.ended_at.getTime() - done.answered_at.getTime()) / 1000, done.duration_seconds);
    const minutes = Math.ceil(plan.script.details.durationSeconds / 60);
    assert.equal(done.billable_seconds, minutes * 60);
    assert.equal(done.cost_usd, (minutes * 0.09).toFixed(4));
    assert.equal(done.summary, plan.script.details.summary);
    assert.equal(done.has_transcript, true);
    assert.match(done.disconnect_reason ?? '', /hangup$/);
    const recorded = await events(id);
    assert.deepEqual(
      recorded.map((e) => [e.type, e.sequence]),
      [
        ['call.completed', 1],
        ['call.insight.received', 2],
      ],
    );
    assert.equal(recorded[0]?.occurred_at.getTime(), t.clock.now().getTime());
  });

  it('ends an unanswered call with no conversation, no cost and a call.completed only', async () => {
    const c = await newCaller(t);
    const id = (await placeCall(t, c, { to_number: BUSY })).body.id;
    await advance(t, 5);
    const call = await findCall(t.db, id);
    assert.equal(call?.status, 'busy');
    assert.equal(call?.answered_at, null);
    assert.equal(call?.conversation_id, null);
    assert.equal(call?.duration_seconds, 0);
    assert.equal(call?.billable_seconds, 0);
    assert.equal(call?.cost_usd, '0.0000');
    assert.deepEqual(
      (await events(id)).map((e) => e.type),
      ['call.completed'],
    );
  });

  it('ignores duplicate and late provider events: a terminal call never moves again', async () => {
    const c = await newCaller(t);
    const id = (await placeCall(t, c, { to_number: BUSY })).body.id;
    await advance(t, 5);
    const providerCallId = (await t.services.simulator.inspect(id))?.providerCallId ?? '';
    const at = t.clock.now();
    const lifecycle = t.services.lifecycle;
    assert.equal(
      await lifecycle.applyProviderEvent({ type: 'call.ringing', providerCallId, callId: id, at }),
      'ignored',
    );
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
    assert.equal(await status(id), 'busy');
    assert.equal(
      await lifecycle.applyProviderEvent({
        type: 'call.ringing',
        providerCallId: 'sim_call_unknown',
        callId: null,
        at,
      }),
      'unknown',
    );
    assert.equal((await events(id)).length, 1);
  });

  it('postpones post-processing while the provider is down, then records each event exactly once', async () => {
    const c = await newCaller(t);
    const id = (await placeCall(t, c, { to_number: ANSWERS })).body.id;
    const duration = (await t.services.simulator.inspect(id))?.script.details.durationSeconds ?? 0;
    await advance(t, 20);
    t.services.simulator.configure({ fault: 'unavailable' });
    try {
      await advance(t, duration);
      assert.equal(await status(id), 'completed', 'the hang-up is recorded at once');
      assert.equal((await findCall(t.db, id))?.cost_usd, null);
      assert.deepEqual(await events(id), []);
      const lc = await t.db
        .selectFrom('call_lifecycle')
        .selectAll()
        .where('call_id', '=', id)
        .executeTakeFirst();
      assert.equal(lc?.processing_state, 'pending');
      assert.equal(lc?.processing_attempts, 1);
      assert.ok(lc?.processing_due_at && lc.processing_due_at > t.clock.now(), 'retried later, with backoff');
    } finally {
      t.services.simulator.configure({ fault: 'none' });
    }
    await advance(t, 60);
    await advance(t, 60);
    assert.equal((await findCall(t.db, id))?.duration_seconds, duration);
    assert.deepEqual(
      (await events(id)).map((e) => e.type),
      ['call.completed', 'call.insight.received'],
    );
  });

  it(`gives up on the provider after ${MAX_PROCESSING_ATTEMPTS} attempts and finishes with the telephony facts`, async () => {
    const c = await newCaller(t);
    const id = (await placeCall(t, c, { to_number: ANSWERS })).body.id;
    await advance(t, 20);
    t.services.simulator.configure({ fault: 'unavailable' });
    try {
      for (let i = 0; i < MAX_PROCESSING_ATTEMPTS + 2; i++) await advance(t, 900);
    } finally {
      t.services.simulator.configure({ fault: 'none' });
    }
    const call = await findCall(t.db, id);
    assert.equal(call?.status, 'completed');
    assert.ok(call?.answered_at && call.ended_at);
    assert.equal(
      call.duration_seconds,
      Math.round((call.ended_at.getTime() - call.answered_at.getTime()) / 1000),
    );
    assert.notEqual(call.cost_usd, null);
    assert.deepEqual(
      (await events(id)).map((e) => e.type),
      ['call.completed'],
      'no insights without the provider',
    );
  });

  it('records inbound calls from the provider under the assistant’s customer', async () => {
    const c = await newCaller(t);
    await t.services.simulator.simulateInbound({
      assistantId: c.assistant.id,
      to: '+14155550102',
      from: '+12125550123',
      callerName: 'Wei Chen',
      language: 'en-US',
    });
    await advance(t, 1);
    const rows = await t.db.selectFrom('calls').selectAll().where('customer_id', '=', c.customerId).execute();
    assert.equal(rows.length, 1);
    const [call] = rows;
    assert.equal(call?.direction, 'inbound');
    assert.equal(call?.api_initiated, false);
    assert.equal(call?.from_number, '+12125550123');
    assert.equal(call?.caller_name, 'Wei Chen');
    assert.ok(['ringing', 'in_progress', 'canceled'].includes(call?.status ?? ''));
    await advance(t, 900);
    const done = await findCall(t.db, call?.id ?? '');
    assert.ok(done && ['completed', 'canceled'].includes(done.status));
    const completed = (await events(done.id)).find((e) => e.type === 'call.completed');
    assert.ok(completed);
    assert.equal((completed.data as { direction: string }).direction, 'incoming');
  });
});
