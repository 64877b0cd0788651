import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { ElevenLabsError, ElevenLabsTimeoutError } from '@elevenlabs/elevenlabs-js';
import { wireConversation } from '../testing/fake-elevenlabs.ts';
import { failureOf } from './errors.ts';
import { conversationOf, eventsOf, usd } from './events.ts';
import { type ConversationFacts, readConversation } from './facts.ts';
import { readSignatureHeader, signatureHeader, signatureMatches } from './signature.ts';
import { parseWebhook } from './webhook.ts';

const SECRET = 'wsec_unit_0123456789abcdef';
const NOW = new Date('2026-11-23T12:00:00Z');
const T = Math.floor(NOW.getTime() / 1000);
const BODY = '{"type":"post_call_transcription","event_timestamp":1,"data":{}}';
const sign = (t: number, body = BODY, secret = SECRET) =>
  `t=${t},v0=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;

/** The route's two steps: the header before the body is read, then the digest over the body. */
function verifySignature(header: string | undefined, body: Buffer, secret: string, now: Date) {
  const claim = readSignatureHeader(header, now);
  if (typeof claim === 'string') return claim;
  return signatureMatches(claim, body, secret) ? 'valid' : 'mismatch';
}

describe('ElevenLabs-Signature', () => {
  const cases: [
    string,
    string | undefined,
    string,
    'valid' | 'missing' | 'malformed' | 'stale' | 'mismatch',
  ][] = [
    ['signed now', sign(T), BODY, 'valid'],
    ['signed 299 s ago', sign(T - 299), BODY, 'valid'],
    ['signed 299 s ahead', sign(T + 299), BODY, 'valid'],
    ['signed 301 s ago', sign(T - 301), BODY, 'stale'],
    ['signed 301 s ahead', sign(T + 301), BODY, 'stale'],
    ['no header', undefined, BODY, 'missing'],
    ['no v0', `t=${T}`, BODY, 'malformed'],
    ['no t', sign(T).replace(/^t=\d+,/, ''), BODY, 'malformed'],
    ['another secret', sign(T, BODY, 'wsec_other_0123456789abcdef'), BODY, 'mismatch'],
    ['one byte changed', sign(T), `${BODY} `, 'mismatch'],
    ['a re-serialised body', sign(T, JSON.stringify(JSON.parse(BODY), null, 1)), BODY, 'mismatch'],
    ['a second, valid v0 among bad ones', `${sign(T)},v0=${'0'.repeat(64)}`, BODY, 'valid'],
  ];
  for (const [name, header, body, expected] of cases) {
    it(`${name} → ${expected}`, () => {
      assert.equal(verifySignature(header, Buffer.from(body), SECRET, NOW), expected);
    });
  }
  it('signatureHeader (the fake provider) produces what verifySignature accepts', () => {
    assert.equal(
      verifySignature(signatureHeader(BODY, SECRET, NOW), Buffer.from(BODY), SECRET, NOW),
      'valid',
    );
  });
});

const phone: NonNullable<ConversationFacts['phone']> = {
  direction: 'outbound',
  agentNumber: '+14155550102',
  externalNumber: '+14155550199',
  callResult: 'answered',
};
const base: ConversationFacts = {
  conversationId: 'conv_1',
  agentId: 'agent_1',
  status: 'done',
  startUnix: T,
  acceptedUnix: T + 5,
  durationSeconds: 40,
  costFiatUsd: 0.12345,
  terminationReason: 'Call ended by remote party',
  phone,
  userId: '0b6f0e0c-6c55-4f3f-9a4c-0f6d1c1d2e3f',
  summary: 'Summary.',
  insights: [{ name: 'x', result: 1 }],
  turns: [{ role: 'agent', message: 'Hi', offsetSeconds: 0 }],
  hasAudio: true,
};

describe('ElevenLabs statuses → our events', () => {
  const shape = (f: Partial<ConversationFacts>) =>
    eventsOf({ ...base, ...f }, 'assistant-1').map((e) =>
      e.type === 'call.ended' ? `ended:${e.status}` : e.type,
    );
  const cases: [string, Partial<ConversationFacts>, string[]][] = [
    [
      'initiated',
      { status: 'initiated', acceptedUnix: null, phone: { ...phone, callResult: null } },
      ['call.ringing'],
    ],
    [
      'in-progress',
      { status: 'in-progress', phone: { ...phone, callResult: null } },
      ['call.ringing', 'call.answered'],
    ],
    ['processing (settling)', { status: 'processing' }, ['call.ringing', 'call.answered', 'ended:completed']],
    ['done', {}, ['call.ringing', 'call.answered', 'ended:completed']],
    [
      'voicemail',
      { phone: { ...phone, callResult: 'voicemail' } },
      ['call.ringing', 'call.answered', 'ended:completed'],
    ],
    [
      'failed, busy',
      { status: 'failed', acceptedUnix: null, phone: { ...phone, callResult: 'busy' } },
      ['call.ringing', 'ended:busy'],
    ],
    [
      'failed, no answer',
      { status: 'failed', acceptedUnix: null, phone: { ...phone, callResult: 'no_answer' } },
      ['call.ringing', 'ended:no_answer'],
    ],
    ['failed after answering', { status: 'failed' }, ['call.ringing', 'call.answered', 'ended:failed']],
    [
      'failed, no telephony result',
      { status: 'failed', acceptedUnix: null, phone: { ...phone, callResult: null } },
      ['call.ringing', 'ended:failed'],
    ],
    [
      'inbound',
      { phone: { ...phone, direction: 'inbound' } },
      ['call.inbound', 'call.answered', 'ended:completed'],
    ],
  ];
  for (const [name, facts, expected] of cases) {
    it(name, () => assert.deepEqual(shape(facts), expected));
  }
  it('carries our call id only when user_id is one of ours, and times the end from the answer', () => {
    const events = eventsOf(base, null);
    const ended = events.at(-1);
    assert.equal(ended?.type === 'call.ended' ? ended.at.getTime() : 0, (T + 5 + 40) * 1000);
    assert.equal(events[0]?.type === 'call.ringing' ? events[0].callId : 'x', base.userId);
    const foreign = eventsOf({ ...base, userId: 'someone@example.com' }, null)[0];
    assert.equal(foreign?.type === 'call.ringing' ? foreign.callId : 'x', null);
  });
  it('an inbound conversation of an agent linked to no assistant creates nothing', () => {
    assert.deepEqual(
      eventsOf({ ...base, phone: { ...phone, direction: 'inbound' } }, null).map((e) => e.type),
      ['call.answered', 'call.ended'],
    );
  });
  it('the transcript settles until done; details and the exact cost once over', () => {
    assert.deepEqual(conversationOf({ ...base, status: 'processing' }), {
      conversationId: 'conv_1',
      details: null,
      transcript: { state: 'settling', retryAfterSeconds: 10 },
    });
    const done = conversationOf(base);
    assert.equal(done.details?.costUsd, '0.1235');
    assert.equal(done.transcript.state, 'ready');
    assert.equal(conversationOf({ ...base, costFiatUsd: null }).details?.costUsd, null);
    assert.equal(usd(0.00005), '0.0001');
    assert.equal(usd(12.3), '12.3000');
  });
});

describe('ElevenLabs errors → provider errors', () => {
  const status = (statusCode: number, body: unknown, headers: Record<string, string> = {}) =>
    new ElevenLabsError({
      statusCode,
      body,
      rawResponse: {
        headers: new Headers(headers),
        redirected: false,
        status: statusCode,
        statusText: '',
        type: 'basic',
        url: '',
      },
    });
  const cases: [string, unknown, string, boolean, number | undefined][] = [
    ['500', status(500, {}), 'unavailable', true, undefined],
    ['503', status(503, {}), 'unavailable', true, undefined],
    ['network', new TypeError('fetch failed'), 'unavailable', true, undefined],
    ['SDK timeout error', new ElevenLabsTimeoutError('late'), 'timeout', true, undefined],
    [
      'SDK abort "timeout"',
      new ElevenLabsError({ message: 'timeout', cause: 'timeout' }),
      'timeout',
      true,
      undefined,
    ],
    ['404', status(404, {}), 'not_found', false, undefined],
    [
      '429 too_many_concurrent_requests',
      status(429, { detail: { status: 'too_many_concurrent_requests' } }, { 'retry-after': '9' }),
      'busy',
      true,
      9,
    ],
    ['429 system_busy, no Retry-After', status(429, { detail: { status: 'system_busy' } }), 'busy', true, 5],
    [
      '429 quota exceeded (not concurrency)',
      status(429, { detail: { status: 'quota_exceeded' } }),
      'unavailable',
      true,
      undefined,
    ],
    ['401', status(401, {}), 'unavailable', true, undefined],
  ];
  for (const [name, error, code, retryable, retryAfter] of cases) {
    it(`${name} → ${code}`, () => {
      const { error: e } = failureOf(error, 'x', { timeoutMs: 1000, apiKey: 'k' });
      assert.equal(e.code, code);
      assert.equal(e.retryable, retryable);
      assert.equal(e.retryAfterSeconds, retryAfter);
    });
  }
});

describe('post-call webhook payloads', () => {
  it('maps call_initiation_failure reasons', () => {
    for (const [reason, expected] of [
      ['busy', 'busy'],
      ['no-answer', 'no_answer'],
      ['unknown', 'failed'],
    ] as const) {
      const parsed = parseWebhook({
        type: 'call_initiation_failure',
        event_timestamp: T,
        data: {
          agent_id: 'a',
          conversation_id: 'c',
          failure_reason: reason,
          metadata: { type: 'twilio', body: {} },
        },
      });
      assert.equal(
        parsed.kind === 'initiation_failure' && parsed.event.type === 'call.ended'
          ? parsed.event.status
          : null,
        expected,
      );
    }
  });
  it('is invalid without the envelope or the model, naming what it lacks, and `other` for event types we do not use', () => {
    assert.deepEqual(parseWebhook({ data: {} }), {
      kind: 'invalid',
      problems: ['type is missing', 'event_timestamp is missing'],
    });
    const partial = parseWebhook({
      type: 'post_call_transcription',
      event_timestamp: T,
      data: { agent_id: 'a' },
    });
    assert.equal(partial.kind, 'invalid');
    assert.ok(partial.kind === 'invalid' && partial.problems.includes('data.conversation_id is missing'));
    assert.deepEqual(parseWebhook({ type: 'post_call_audio', event_timestamp: T, data: {} }), {
      kind: 'other',
      type: 'post_call_audio',
    });
  });
});

describe('a conversation read either way', () => {
  it('gives the same facts from the SDK model and from the wire form, data collection ids as they are', async () => {
    // The SDK's own parser turns the wire form into its model, as `conversations.get` does.
    const { GetConversationResponseModel } = await import('@elevenlabs/elevenlabs-js/serialization/index.js');
    const wire = wireConversation({
      conversation_id: 'conv_1',
      agent_id: 'agent_1',
      status: 'done',
      user_id: 'call-1',
      direction: 'outbound',
      phone_number_id: 'phnum_1',
      agent_number: '+14155550102',
      external_number: '+14155550199',
      call_sid: 'CA0123456789',
      call_result: 'answered',
      start: T,
      accepted: T + 3,
      duration: 42,
      dynamic_variables: {},
    });
    const sdk = GetConversationResponseModel.parseOrThrow(wire, { unrecognizedObjectKeys: 'passthrough' });
    const read = readConversation(wire);
    assert.ok(read.ok);
    const fromWire = read.value;
    assert.deepEqual(readConversation(sdk), read);
    assert.deepEqual(
      fromWire.insights.map((i) => i.name),
      ['appointment_confirmed', 'evaluation.polite', 'call_successful'],
    );
    assert.equal(fromWire.phone?.externalNumber, '+14155550199');
    assert.equal(fromWire.turns.length, 2);
  });
});
