import assert from 'node:assert/strict';
import { after, before, describe, it, mock } from 'node:test';
import { createLogger } from '../logger.ts';
import { ANSWERS, advance, type Caller, newCaller, placeCall } from '../testing/outbound.fixtures.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';
import { subscribe } from '../testing/webhook.fixtures.ts';
import { createTranscriptReadyProcessor } from '../webhooks/index.ts';

/** What the caller says in the simulated script (its opening names the person: `first_name`). */
const VARIABLES = {
  first_name: 'Ann (ann.lee@example.com, +1 415 555 0123, card 4111 1111 1111 1111)',
  appointment_time: 'on 2026-12-01 at 10:30, order ORD-2024-000123',
};
const MASKED_OPENING =
  'Hi Ann ([email], [phone], card [card]), this is the virtual assistant calling to confirm your appointment ' +
  'on 2026-12-01 at 10:30, order ORD-2024-000123.';

/** Transcript redaction, a customer's option: stored transcripts, both forms served, call.transcript.ready, summaries. */
describe('transcript redaction', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const processing = async (id: string) =>
    (
      await t.db
        .selectFrom('call_lifecycle')
        .select('processing_state')
        .where('call_id', '=', id)
        .executeTakeFirst()
    )?.processing_state;

  async function finishedCall(c: Caller): Promise<string> {
    const res = await placeCall(t, c, { to_number: ANSWERS, variables: VARIABLES });
    assert.equal(res.status, 201, res.text);
    const id = String(res.body.id);
    for (let i = 0; i < 40 && (await processing(id)) !== 'done'; i++) await advance(t, 30);
    return id;
  }

  async function transcriptOf(c: Caller, id: string) {
    let res = await t.request('GET', `/api/v1/calls/${id}/transcript`, { key: c.key });
    for (let i = 0; i < 10 && res.status === 202; i++) {
      await advance(t, 30);
      res = await t.request('GET', `/api/v1/calls/${id}/transcript`, { key: c.key });
    }
    assert.equal(res.status, 200, res.text);
    return res.body.transcript as { full_text: string; segments: { text: string }[] };
  }

  const stored = async (id: string) =>
    JSON.stringify(
      (
        await t.db
          .selectFrom('transcripts')
          .select('segments')
          .where('call_id', '=', id)
          .executeTakeFirstOrThrow()
      ).segments,
    );

  it('masks phone numbers, e-mail addresses and card numbers before storing, in both forms and the webhook', async () => {
    const c = await newCaller(t);
    await t.services.customers.setTranscriptRedaction(c.customerId, true);
    const sub = await subscribe(t, c, 'https://example.com/transcripts', ['call.transcript.ready']);
    // Deleted at the end, so its pending delivery is never claimed by another test's worker.
    const id = await finishedCall(c);
    const processor = createTranscriptReadyProcessor({
      db: t.db,
      clock: t.clock,
      transcripts: t.services.transcripts,
      logger: createLogger('silent'),
    });
    const ready = () =>
      t.db
        .selectFrom('events')
        .select('data')
        .where('call_id', '=', id)
        .where('type', '=', 'call.transcript.ready')
        .executeTakeFirst();
    for (let i = 0; i < 20 && !(await ready()); i++) {
      await advance(t, 10);
      await processor.runOnce();
    }
    await t.request('DELETE', `/api/v1/webhook-subscriptions/${sub.id}`, { key: c.key });

    const event = (await ready())?.data as {
      transcript: { plain_text: string; segments: { text: string }[] };
    };
    assert.ok(event, 'call.transcript.ready recorded');
    assert.equal(
      event.transcript.segments[0]?.text.startsWith(MASKED_OPENING),
      true,
      event.transcript.segments[0]?.text,
    );
    assert.match(event.transcript.plain_text, /^Assistant: Hi Ann \(\[email\], \[phone\], card \[card\]\)/);
    const rest = await transcriptOf(c, id);
    assert.equal(rest.segments[0]?.text.startsWith(MASKED_OPENING), true);
    assert.equal(
      (await t.request('GET', `/api/v1/outbound-calls/${id}/transcript`, { key: c.key })).body.transcript
        .full_text,
      rest.full_text,
    );
    const kept = await stored(id);
    for (const secret of ['ann.lee@example.com', '555 0123', '4111'])
      assert.ok(!kept.includes(secret), secret);
    assert.ok(kept.includes('ORD-2024-000123') && kept.includes('10:30'), 'the rest is kept');
  });

  it('leaves the transcript whole without the option; turned on later, a stored one is masked when read', async () => {
    const c = await newCaller(t);
    const id = await finishedCall(c);
    const whole = await transcriptOf(c, id);
    assert.match(whole.full_text, /ann\.lee@example\.com, \+1 415 555 0123, card 4111 1111 1111 1111/);
    assert.match(await stored(id), /ann\.lee@example\.com/);
    await t.services.customers.setTranscriptRedaction(c.customerId, true);
    const masked = await transcriptOf(c, id);
    assert.equal(masked.segments[0]?.text.startsWith(MASKED_OPENING), true);
    assert.ok(!masked.full_text.includes('ann.lee@example.com'));
  });

  it('masks the summary at post-processing; a test twin follows its customer', async () => {
    const c = await newCaller(t);
    await t.services.customers.setTranscriptRedaction(c.customerId, true);
    const simulator = t.services.simulator;
    const original = simulator.getConversation.bind(simulator);
    const getConversation = mock.method(simulator, 'getConversation', async (conversationId: string) => {
      const result = await original(conversationId);
      if (!result.ok || !result.value.details) return result;
      const details = {
        ...result.value.details,
        summary: 'Call back on 415-555-0100 or mail ann@example.com.',
      };
      return { ...result, value: { ...result.value, details } };
    });
    try {
      const id = await finishedCall(c);
      const detail = await t.request('GET', `/api/v1/calls/${id}`, { key: c.key });
      assert.equal(detail.body.summary, 'Call back on [phone] or mail [email].');
    } finally {
      getConversation.mock.restore();
    }
    const { secret: testKey } = await t.services.keys.createKey({
      customerId: c.customerId,
      name: 'test',
      scopes: ['read_calls', 'outbound_calls'],
      mode: 'test',
    });
    const id = await finishedCall({ ...c, key: testKey });
    const masked = await transcriptOf({ ...c, key: testKey }, id);
    assert.equal(
      masked.segments[0]?.text.startsWith(MASKED_OPENING),
      true,
      'test data is masked as live data is',
    );
  });
});
