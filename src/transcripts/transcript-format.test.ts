import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  boundedWebhookTranscript,
  fromWebhookTranscript,
  type RestTranscript,
  restTranscript,
  segmentsFromTurns,
  toWebhookTranscript,
  type WebhookTranscript,
} from './transcript-format.ts';

const rest: RestTranscript = restTranscript([
  {
    speaker: 'assistant',
    text: 'Thanks for calling. How can I help?',
    timestamp: '2026-03-01T10:00:01.000Z',
  },
  { speaker: 'caller', text: 'I would like to book a cleaning.', timestamp: '2026-03-01T10:00:04.500Z' },
]);

const webhook: WebhookTranscript = {
  format: 'segments',
  segments: [
    { role: 'assistant', text: 'Thanks for calling. How can I help?', ts: '2026-03-01T10:00:01.000Z' },
    { role: 'user', text: 'I would like to book a cleaning.', ts: '2026-03-01T10:00:04.500Z' },
  ],
  plain_text: 'Assistant: Thanks for calling. How can I help?\nCaller: I would like to book a cleaning.',
};

describe('transcript forms: REST (speaker/timestamp/full_text) and webhook (role/ts/plain_text)', () => {
  it('makes speaker-prefixed full text', () => {
    assert.equal(rest.full_text, webhook.plain_text);
  });

  it('converts REST to webhook', () => {
    assert.deepEqual(toWebhookTranscript(rest), webhook);
  });

  it('converts webhook to REST', () => {
    assert.deepEqual(fromWebhookTranscript(webhook), rest);
  });

  it('round-trips both ways', () => {
    assert.deepEqual(fromWebhookTranscript(toWebhookTranscript(rest)), rest);
    assert.deepEqual(toWebhookTranscript(fromWebhookTranscript(webhook)), webhook);
  });

  it('anchors provider turns (offsets in seconds) at the conversation start', () => {
    const segments = segmentsFromTurns(
      [
        { role: 'agent', message: 'Hello.', offsetSeconds: 1 },
        { role: 'user', message: 'Hi.', offsetSeconds: 2.25 },
      ],
      new Date('2026-03-01T10:00:00.000Z'),
    );
    assert.deepEqual(segments, [
      { speaker: 'assistant', text: 'Hello.', timestamp: '2026-03-01T10:00:01.000Z' },
      { speaker: 'caller', text: 'Hi.', timestamp: '2026-03-01T10:00:02.250Z' },
    ]);
  });

  it('cuts an oversized webhook transcript at whole segments and says so', () => {
    const long = restTranscript(
      Array.from({ length: 100 }, (_, i) => ({
        speaker: i % 2 ? ('caller' as const) : ('assistant' as const),
        text: `segment ${i} ${'x'.repeat(100)}`,
        timestamp: '2026-03-01T10:00:00.000Z',
      })),
    );
    const whole = boundedWebhookTranscript(long);
    assert.equal(whole.truncated, false);
    assert.equal(whole.transcript.segments.length, 100);
    const cut = boundedWebhookTranscript(long, 4000);
    assert.equal(cut.truncated, true);
    assert.ok(Buffer.byteLength(JSON.stringify(cut.transcript)) <= 4000);
    assert.ok(cut.transcript.segments.length > 0 && cut.transcript.segments.length < 100);
    assert.equal(cut.transcript.plain_text.split('\n').length, cut.transcript.segments.length);
    assert.equal(cut.transcript.segments[0]?.text, long.segments[0]?.text, 'the beginning is kept');
  });
});
