import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../clock.ts';
import { newUuid } from '../ids.ts';
import { guardProvider } from '../provider/guarded.ts';
import type { PlaceCallRequest, ProviderEvent, VoiceProvider } from '../provider/interface.ts';
import { testDatabase } from '../testing/test-database.ts';
import { createSimulator } from './simulator.ts';
import { NO_ANSWER_AFTER_SECONDS } from './simulator-plan.ts';

const request = (to: string, extra: Partial<PlaceCallRequest> = {}): PlaceCallRequest => ({
  callId: newUuid(),
  assistantId: newUuid(),
  language: 'en-US',
  from: '+14155550100',
  to,
  variables: { first_name: 'Ada' },
  maxDurationSeconds: 600,
  ...extra,
});

async function setup(settleSeconds = 15) {
  const { db } = await testDatabase();
  const clock = new ManualClock('2026-03-01T10:00:00.000Z');
  const account = newUuid();
  const sim = createSimulator({ db, clock, account, settleSeconds });
  const events: ProviderEvent[] = [];
  const collect = async (e: ProviderEvent) => {
    events.push(e);
  };
  const run = async (seconds: number) => {
    clock.advance(seconds * 1000);
    await sim.runDue(clock.now(), collect);
  };
  /** Another process of the same deployment (or this one after a restart): same database, same account. */
  const restart = () => createSimulator({ db, clock, account, settleSeconds });
  return { db, clock, sim, events, run, collect, restart };
}

async function placed(sim: VoiceProvider, req: PlaceCallRequest): Promise<string> {
  const r = await sim.placeCall(req);
  assert.ok(r.ok);
  return r.value.providerCallId;
}

describe('simulator provider', () => {
  it('takes an answered call through ringing, answered and ended, with a settling transcript', async () => {
    const { clock, sim, events, run } = await setup(20);
    const req = request('+14155550199');
    const t0 = clock.now().getTime();
    await placed(sim, req);
    await run(0);
    assert.equal(events.length, 0, 'nothing happens before the first step is due');
    await run(3600);
    assert.deepEqual(
      events.map((e) => e.type),
      ['call.ringing', 'call.answered', 'call.ended'],
    );
    for (const e of events) assert.equal('callId' in e ? e.callId : null, req.callId);
    const [ringing, answered, ended] = events;
    assert.equal(ringing?.at.getTime(), t0 + 1000);
    assert.ok(answered?.type === 'call.answered' && ended?.type === 'call.ended');
    assert.equal(ended.status, 'completed');
    assert.match(ended.disconnectReason, /^(assistant|caller)_hangup$/);
    const script = (await sim.inspect(req.callId))?.script;
    assert.ok(script);
    assert.equal(
      Math.round((ended.at.getTime() - answered.at.getTime()) / 1000),
      script.details.durationSeconds,
      'the call lasts as long as its conversation',
    );
    assert.ok(
      script.turns.some((t) => t.message.includes('Ada')),
      'variables reach the script',
    );

    // Settling is measured from the end of the conversation.
    clock.set(new Date(ended.at.getTime() + 5_000));
    const settling = await sim.getConversation(answered.conversationId);
    assert.ok(settling.ok);
    assert.deepEqual(settling.value.transcript, { state: 'settling', retryAfterSeconds: 15 });
    assert.equal(settling.value.details?.durationSeconds, script.details.durationSeconds);
    clock.set(new Date(ended.at.getTime() + 20_000));
    const ready = await sim.getConversation(answered.conversationId);
    assert.ok(ready.ok && ready.value.transcript.state === 'ready');
    assert.deepEqual(ready.value.transcript.turns, script.turns);
    assert.deepEqual(new Set(script.turns.map((t) => t.role)), new Set(['agent', 'user']));
  });

  it('reports a conversation still going on as settling, without details', async () => {
    const { sim, events, run } = await setup();
    await placed(sim, request('+14155550199'));
    for (let i = 0; i < 30 && !events.some((e) => e.type === 'call.answered'); i++) await run(1);
    assert.ok(!events.some((e) => e.type === 'call.ended'), 'answered, not ended yet');
    const answered = events.find((e) => e.type === 'call.answered');
    assert.ok(answered?.type === 'call.answered');
    const r = await sim.getConversation(answered.conversationId);
    assert.ok(r.ok);
    assert.equal(r.value.details, null);
    assert.equal(r.value.transcript.state, 'settling');
  });

  for (const [suffix, status, reason, types] of [
    ['0191', 'busy', 'busy', ['call.ended']],
    ['0192', 'no_answer', 'no_answer', ['call.ringing', 'call.ended']],
    ['0193', 'failed', 'carrier_error', ['call.ended']],
    ['0195', 'canceled', 'canceled_upstream', ['call.ended']],
  ] as const) {
    it(`test number …${suffix} ends ${status} without a conversation`, async () => {
      const { sim, events, run } = await setup();
      await placed(sim, request(`+1415555${suffix}`));
      await run(NO_ANSWER_AFTER_SECONDS + 5);
      assert.deepEqual(
        events.map((e) => e.type),
        types,
      );
      const ended = events.at(-1);
      assert.ok(ended?.type === 'call.ended');
      assert.equal(ended.status, status);
      assert.equal(ended.disconnectReason, reason);
    });
  }

  it('hangs up at the maximum duration', async () => {
    const { sim, events, run } = await setup();
    await placed(sim, request('+14155550194', { maxDurationSeconds: 120 }));
    await run(3600);
    const answered = events.find((e) => e.type === 'call.answered');
    const ended = events.find((e) => e.type === 'call.ended');
    assert.ok(answered && ended?.type === 'call.ended');
    assert.equal(ended.disconnectReason, 'max_duration');
    assert.equal((ended.at.getTime() - answered.at.getTime()) / 1000, 120);
  });

  it('places a call once per call id, however often it is asked', async () => {
    const { sim } = await setup();
    const req = request('+14155550199');
    const first = await placed(sim, req);
    assert.equal(await placed(sim, { ...req, to: '+14155550191' }), first);
    assert.equal(await sim.placementCount(), 1);
  });

  it('delivers events at least once and in order: a refused event is delivered again', async () => {
    const { clock, sim } = await setup();
    await placed(sim, request('+14155550199'));
    clock.advance(3600_000);
    const seen: string[] = [];
    let refuse = true;
    const deliver = async (e: ProviderEvent) => {
      seen.push(e.type);
      if (e.type === 'call.answered' && refuse) {
        refuse = false;
        throw new Error('receiver down');
      }
    };
    await assert.rejects(sim.runDue(clock.now(), deliver), /receiver down/);
    assert.equal(await sim.runDue(clock.now(), deliver), 2);
    assert.deepEqual(seen, ['call.ringing', 'call.answered', 'call.answered', 'call.ended']);
  });

  it('outlives the process: after a restart a call in flight goes on, its overdue steps at once', async () => {
    const { clock, sim, events, run, collect, restart } = await setup();
    const req = request('+14155550199');
    const t0 = clock.now().getTime();
    await placed(sim, req);
    await run(1);
    assert.deepEqual(
      events.map((e) => e.type),
      ['call.ringing'],
    );
    // The process stops; a new one starts on the same database an hour later.
    clock.advance(3600_000);
    const next = restart();
    assert.equal(await next.runDue(clock.now(), collect), 2);
    assert.deepEqual(
      events.map((e) => e.type),
      ['call.ringing', 'call.answered', 'call.ended'],
    );
    const script = (await next.inspect(req.callId))?.script;
    const [, answered, ended] = events;
    assert.ok(script && answered && ended);
    assert.ok(answered.at.getTime() > t0 + 1000, 'each step keeps its planned instant');
    assert.equal((ended.at.getTime() - answered.at.getTime()) / 1000, script.details.durationSeconds);
    assert.equal(await sim.runDue(clock.now(), collect), 0, 'no step is delivered twice, by either instance');
    assert.equal((await next.placeCall(req)).ok && (await next.placementCount()), 1, 'dedupe survives too');
  });

  it('stops after the call in hand once its signal is aborted; the calls not begun stay due', async () => {
    const { clock, sim } = await setup();
    for (let i = 0; i < 3; i++) await placed(sim, request('+14155550199'));
    clock.advance(3600_000);
    const stopping = new AbortController();
    const first: ProviderEvent[] = [];
    const delivered = await sim.runDue(
      clock.now(),
      async (e) => {
        first.push(e);
        stopping.abort();
      },
      stopping.signal,
    );
    assert.equal(delivered, 3, "the first call's three steps, then no other call");
    assert.equal(new Set(first.map((e) => e.providerCallId)).size, 1);
    const rest: ProviderEvent[] = [];
    assert.equal(await sim.runDue(clock.now(), async (e) => void rest.push(e)), 6);
    const seen = [...first, ...rest].map((e) => `${e.providerCallId} ${e.type}`);
    assert.equal(new Set(seen).size, 9, 'every step once, none lost');
  });

  it('lets instances of one deployment drive its calls side by side: each step delivered once', async () => {
    const { clock, sim, events, collect, restart } = await setup();
    const other = restart();
    for (let i = 0; i < 6; i++) await placed(sim, request('+14155550192'));
    clock.advance(3600_000);
    const counts = await Promise.all([sim.runDue(clock.now(), collect), other.runDue(clock.now(), collect)]);
    assert.equal(counts[0] + counts[1], 12);
    assert.equal(new Set(events.map((e) => `${e.providerCallId} ${e.type}`)).size, 12, 'no step twice');
  });

  it('answers callEvents with what has happened by now, not_found for a call it never had', async () => {
    const { clock, sim } = await setup();
    const id = await placed(sim, request('+14155550192'));
    const types = async () => {
      const r = await sim.callEvents(id);
      assert.ok(r.ok);
      return r.value.map((e) => e.type);
    };
    assert.deepEqual(await types(), []);
    clock.advance(2_000);
    assert.deepEqual(await types(), ['call.ringing']);
    clock.advance(NO_ANSWER_AFTER_SECONDS * 1000);
    assert.deepEqual(
      await types(),
      ['call.ringing', 'call.ended'],
      'whether or not runDue has delivered them',
    );
    const unknown = await sim.callEvents('sim_call_nope');
    assert.equal(unknown.ok ? null : unknown.error.code, 'not_found');
    sim.configure({ fault: 'unavailable' });
    const down = await sim.callEvents(id);
    assert.ok(!down.ok);
    assert.equal(down.error.code, 'unavailable');
    assert.equal(down.error.retryable, true);
  });

  it('simulates inbound calls to an assistant', async () => {
    const { sim, events, run } = await setup();
    const assistantId = newUuid();
    await sim.simulateInbound({
      assistantId,
      to: '+14155550101',
      from: '+12125550123',
      callerName: 'Wei Chen',
      language: 'en-US',
    });
    await run(3600);
    const first = events[0];
    assert.ok(first?.type === 'call.inbound');
    assert.equal(first.assistantId, assistantId);
    assert.equal(first.to, '+14155550101');
    assert.equal(events.at(-1)?.type, 'call.ended');
  });

  it('reads back conversations it no longer holds identically, and refuses ids that are not its own', async () => {
    const { sim } = await setup();
    const id = `conv_${'ab'.repeat(15)}c0`;
    const a = await sim.getConversation(id);
    const b = await createSimulator({
      db: (await testDatabase()).db,
      clock: new ManualClock(),
    }).getConversation(id);
    assert.ok(a.ok && b.ok);
    assert.deepEqual(a.value, b.value);
    assert.equal(a.value.transcript.state, 'ready');
    const unknown = await sim.getConversation('conv_nope');
    assert.deepEqual(unknown.ok ? null : unknown.error.code, 'not_found');
  });

  it('injects faults: unavailable answers a retryable error value, slow waits on the injected sleep', async () => {
    const { sim } = await setup();
    sim.configure({ fault: 'unavailable' });
    const down = await sim.placeCall(request('+14155550199'));
    assert.ok(!down.ok);
    assert.equal(down.error.code, 'unavailable');
    assert.equal(down.error.retryable, true);
    assert.equal(await sim.placementCount(), 0);
    const waited: number[] = [];
    sim.configure({ fault: 'slow', slowMs: 1234, sleep: async (ms) => void waited.push(ms) });
    assert.ok((await sim.placeCall(request('+14155550199'))).ok);
    assert.deepEqual(waited, [1234]);
  });
});

describe('guarded provider', () => {
  const never: VoiceProvider = {
    placeCall: () => new Promise(() => {}),
    getConversation: async () => {
      throw new Error('socket hang up');
    },
    callEvents: () => new Promise(() => {}),
  };

  it('turns a thrown error into unavailable and a hang into timeout, never an exception', async () => {
    const guarded = guardProvider(never, { timeoutMs: 5 });
    const thrown = await guarded.getConversation('conv_x');
    assert.ok(!thrown.ok);
    assert.equal(thrown.error.code, 'unavailable');
    const hung = await guarded.placeCall(request('+14155550199'));
    assert.ok(!hung.ok);
    assert.equal(hung.error.code, 'timeout');
    assert.equal(hung.error.retryable, true);
    const events = await guarded.callEvents('sim_call_x');
    assert.equal(events.ok ? null : events.error.code, 'timeout');
  });
});
