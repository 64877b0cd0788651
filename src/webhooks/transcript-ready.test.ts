import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../logger.ts';
import { advance, newCaller, placeCall } from '../testing/outbound.fixtures.ts';
import { type Receiver, startReceiver } from '../testing/receiver.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';
import { testWorker } from '../testing/webhook.fixtures.ts';
import {
  createTranscriptReadyProcessor,
  type TranscriptReadyProcessor,
  transcriptRetryDelayMs,
} from './transcript-ready.ts';

const SECRET = 'transcript-ready-secret-0123456789abcdef';

describe('call.transcript.ready', () => {
  let t: TestApp;
  let receiver: Receiver;
  let processor: TranscriptReadyProcessor;
  before(async () => {
    t = await startTestApp({ serverSecret: SECRET });
    receiver = await startReceiver();
    processor = createTranscriptReadyProcessor({
      db: t.db,
      clock: t.clock,
      transcripts: t.services.transcripts,
      logger: createLogger('silent'),
    });
  });
  after(async () => {
    t.services.simulator.configure({ settleSeconds: 15 });
    await receiver.close();
    await t.close();
  });

  async function completedCall(events: string[]) {
    const caller = await newCaller(t);
    const sub = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: caller.key,
      body: { url: `${receiver.url}/${caller.customerId}`, events },
    });
    assert.equal(sub.status, 201);
    const placed = await placeCall(t, caller);
    assert.equal(placed.status, 201, placed.text);
    const callId: string = placed.body.id;
    for (let i = 0; i < 40; i++) {
      const done = await t.db
        .selectFrom('events')
        .select('id')
        .where('call_id', '=', callId)
        .where('type', '=', 'call.completed')
        .executeTakeFirst();
      if (done) break;
      await advance(t, 30);
    }
    const job = await t.db
      .selectFrom('transcript_jobs')
      .selectAll()
      .where('call_id', '=', callId)
      .executeTakeFirst();
    return { caller, callId, job };
  }

  const readyEvents = (callId: string) =>
    t.db
      .selectFrom('events')
      .selectAll()
      .where('call_id', '=', callId)
      .where('type', '=', 'call.transcript.ready')
      .execute();

  it('fires once, after the transcript settles, with the webhook transcript form', async () => {
    t.services.simulator.configure({ settleSeconds: 15 });
    const { caller, callId, job } = await completedCall(['call.transcript.ready']);
    assert.ok(job, 'a job was queued by call.completed');
    const started = t.clock.now().getTime();
    while ((await readyEvents(callId)).length === 0 && t.clock.now().getTime() - started < 120_000) {
      await processor.runOnce();
      t.clock.advance(5_000);
    }
    const waited = (t.clock.now().getTime() - started) / 1000;
    assert.ok(waited <= 30, `ready within 30 s of call.completed (took ${waited} s)`);
    for (let i = 0; i < 5; i++) {
      t.clock.advance(60_000);
      await processor.runOnce();
    }
    const events = await readyEvents(callId);
    assert.equal(events.length, 1, 'exactly once');
    const data = events[0]?.data as Record<string, unknown> & {
      transcript: {
        format: string;
        segments: { role: string; text: string; ts: string }[];
        plain_text: string;
      };
    };
    assert.equal(data.call_id, callId);
    assert.equal(typeof data.conversation_id, 'string');
    assert.equal(typeof data.language, 'string');
    assert.equal(typeof data.duration_seconds, 'number');
    assert.equal(data.truncated, false);
    assert.equal(data.transcript.format, 'segments');
    assert.ok(data.transcript.segments.length > 0);
    for (const s of data.transcript.segments) {
      assert.ok(['assistant', 'user'].includes(s.role));
      assert.ok(Date.parse(s.ts));
    }
    assert.ok(data.transcript.plain_text.length > 0);

    const { worker, close } = testWorker(t, SECRET);
    await worker.drain();
    await close();
    const got = receiver.received.filter((r) => r.body.includes(callId));
    assert.equal(got.length, 1);
    assert.equal(got[0]?.headers['x-svc-event'], 'call.transcript.ready');
    // The same transcript, cached, in its REST form.
    const rest = await t.request('GET', `/api/v1/calls/${callId}/transcript`, { key: caller.key });
    assert.equal(rest.status, 200);
    assert.equal(rest.body.transcript.segments.length, data.transcript.segments.length);
    assert.equal(rest.body.transcript.segments[0].text, data.transcript.segments[0]?.text);
  });

  it('without an active call.transcript.ready subscription, no transcript processing happens', async () => {
    const { callId, job } = await completedCall(['call.completed']);
    assert.equal(job, undefined, 'no job');
    await processor.runOnce();
    const stored = await t.db
      .selectFrom('transcripts')
      .select('call_id')
      .where('call_id', '=', callId)
      .executeTakeFirst();
    assert.equal(stored, undefined, 'nothing fetched or stored');
  });

  it('retries with exponential backoff for about two hours, then gives up without firing', async () => {
    t.services.simulator.configure({ settleSeconds: 3 * 3600 });
    const { callId, job } = await completedCall(['call.transcript.ready']);
    assert.ok(job);
    let checks = 0;
    const end = job.deadline_at.getTime() + 3_600_000;
    while (t.clock.now().getTime() < end) {
      checks += await processor.runOnce();
      t.clock.advance(60_000);
    }
    const closed = await t.db
      .selectFrom('transcript_jobs')
      .selectAll()
      .where('call_id', '=', callId)
      .executeTakeFirstOrThrow();
    assert.equal(closed.status, 'expired');
    assert.equal((await readyEvents(callId)).length, 0);
    assert.ok(checks >= 10 && checks <= 20, `backoff, not polling: ${checks} checks in 2 h`);
    assert.equal(job.deadline_at.getTime() - job.created_at.getTime(), 2 * 3600 * 1000);
    t.services.simulator.configure({ settleSeconds: 15 });
  });

  it('backoff doubles from 5 s and is capped at 15 min', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 10, 20].map(transcriptRetryDelayMs),
      [5_000, 10_000, 20_000, 40_000, 900_000, 900_000],
    );
  });
});
