import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import twilioSdk from 'twilio';
import { ManualClock } from '../clock.ts';
import { registerErrorHandling } from '../http/index.ts';
import { createLogger } from '../logger.ts';
import { createMemoryLimiter, type RateLimiter } from '../rate-limit/index.ts';
import type { InboundSms, SmsInbox, SmsStatusReport } from '../sms/index.ts';
import { parseForm } from './form.ts';
import {
  createTwilio,
  SMS_INBOUND_PATH,
  SMS_STATUS_PATH,
  WEBHOOK_BODY_LIMIT_BYTES,
  WEBHOOKS_PER_MINUTE_PER_IP,
} from './index.ts';
import { EMPTY_TWIML } from './webhook.routes.ts';

const ACCOUNT_SID = 'AC0123456789abcdef0123456789abcdef';
const AUTH_TOKEN = 'webhook-auth-token-0f1e2d3c4b5a6978';
const PUBLIC_BASE_URL = 'https://sms.example.com';
const MESSAGE_SID = 'SM0123456789abcdef0123456789abcdef';
const STATUS_URL = `${SMS_STATUS_PATH}?message_id=sms_01`;

type Form = Record<string, string>;

/** A status callback's form as Twilio posts it. */
const statusForm = (status: string, extra: Form = {}): Form => ({
  ApiVersion: '2010-04-01',
  AccountSid: ACCOUNT_SID,
  From: '+14155550199',
  To: '+14155550100',
  MessageSid: MESSAGE_SID,
  SmsSid: MESSAGE_SID,
  MessageStatus: status,
  SmsStatus: status,
  ...extra,
});

/** An inbound message's form as Twilio posts it. */
const inboundForm = (extra: Form = {}): Form => ({
  ToCountry: 'US',
  ToState: 'CA',
  SmsMessageSid: 'SM9999999999abcdef0123456789abcdef',
  NumMedia: '0',
  ToCity: 'SAN FRANCISCO',
  FromZip: '94105',
  SmsSid: 'SM9999999999abcdef0123456789abcdef',
  FromState: 'CA',
  SmsStatus: 'received',
  FromCity: 'SAN FRANCISCO',
  Body: 'Can we move it to 11?',
  FromCountry: 'US',
  To: '+14155550199',
  ToZip: '94105',
  NumSegments: '1',
  MessageSid: 'SM9999999999abcdef0123456789abcdef',
  AccountSid: ACCOUNT_SID,
  From: '+14155550100',
  ApiVersion: '2010-04-01',
  ...extra,
});

function recordingInbox(outcome: 'applied' | 'ignored' | 'unknown' = 'applied') {
  const reports: SmsStatusReport[] = [];
  const received: InboundSms[] = [];
  const inbox: SmsInbox = {
    async statusReported(report) {
      reports.push(report);
      return outcome;
    },
    async received(message) {
      received.push(message);
      return { messageId: 'sms_in_01' };
    },
  };
  return { inbox, reports, received };
}

type Setup = {
  app: FastifyInstance;
  clock: ManualClock;
  limiter: RateLimiter;
  reports: SmsStatusReport[];
  received: InboundSms[];
};

async function setUp(
  options: { publicBaseUrl?: string; outcome?: 'applied' | 'ignored' | 'unknown' } = {},
): Promise<Setup> {
  const clock = new ManualClock('2026-01-15T12:00:00.000Z');
  const limiter = createMemoryLimiter();
  const { inbox, reports, received } = recordingInbox(options.outcome);
  const twilio = createTwilio({
    settings: {
      accountSid: ACCOUNT_SID,
      authToken: AUTH_TOKEN,
      apiBaseUrl: 'http://127.0.0.1:1',
      publicBaseUrl: options.publicBaseUrl ?? PUBLIC_BASE_URL,
    },
    clock,
    logger: createLogger('silent'),
    timeoutMs: 300,
  });
  const app = Fastify({ logger: false });
  registerErrorHandling(app, () => []);
  twilio.registerWebhooks(app, { limiter, inbox });
  await app.ready();
  return { app, clock, limiter, reports, received };
}

const sign = (url: string, form: Form, token = AUTH_TOKEN): string =>
  twilioSdk.getExpectedTwilioSignature(token, url, form);

/** Posts `form` to `url` (path and query), signed for `signedUrl` with `signedForm` unless told otherwise. */
function post(
  app: FastifyInstance,
  url: string,
  form: Form,
  o: {
    signedUrl?: string;
    signedForm?: Form;
    signature?: string | null;
    remoteAddress?: string;
    body?: string;
  } = {},
): Promise<LightMyRequestResponse> {
  const signature =
    o.signature === undefined
      ? sign(o.signedUrl ?? `${PUBLIC_BASE_URL}${url}`, o.signedForm ?? form)
      : o.signature;
  return app.inject({
    method: 'POST',
    url,
    payload: o.body ?? new URLSearchParams(form).toString(),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(signature === null ? {} : { 'x-twilio-signature': signature }),
    },
    ...(o.remoteAddress ? { remoteAddress: o.remoteAddress } : {}),
  });
}

const codeOf = (response: LightMyRequestResponse): string => (response.json() as { code: string }).code;

describe('Twilio status callback: POST /provider/twilio/sms-status', () => {
  it('applies a signed report and answers 204', async () => {
    const t = await setUp();
    const response = await post(t.app, STATUS_URL, statusForm('delivered'));
    assert.equal(response.statusCode, 204);
    assert.equal(response.body, '');
    assert.deepEqual(t.reports, [
      {
        providerMessageId: MESSAGE_SID,
        status: 'delivered',
        errorCode: null,
        errorMessage: null,
        at: new Date('2026-01-15T12:00:00.000Z'),
      },
    ]);
  });

  it('reports every status of ours, with the error code and its sentence', async () => {
    const t = await setUp();
    const allowed: [Form, Partial<SmsStatusReport>][] = [
      [statusForm('queued'), { status: 'queued', errorCode: null }],
      [statusForm('sending'), { status: 'sending', errorCode: null }],
      [statusForm('sent'), { status: 'sent', errorCode: null }],
      [statusForm('delivered'), { status: 'delivered', errorCode: null }],
      [statusForm('undelivered', { ErrorCode: '30003' }), { status: 'undelivered', errorCode: '30003' }],
      [statusForm('failed', { ErrorCode: '21610' }), { status: 'failed', errorCode: '21610' }],
      [statusForm('failed', { ErrorCode: '' }), { status: 'failed', errorCode: null }],
      [
        { SmsSid: MESSAGE_SID, SmsStatus: 'sent' },
        { status: 'sent', errorCode: null },
      ],
    ];
    for (const [form, expected] of allowed) {
      const response = await post(t.app, STATUS_URL, form);
      assert.equal(response.statusCode, 204, JSON.stringify(form));
      const report = t.reports.at(-1);
      assert.deepEqual({ status: report?.status, errorCode: report?.errorCode }, expected);
    }
    assert.match(t.reports[4]?.errorMessage ?? '', /Unreachable destination handset/);
    assert.match(t.reports[5]?.errorMessage ?? '', /replied STOP/);
    assert.equal(t.reports.length, allowed.length);
  });

  it('answers 200 and applies nothing for statuses no message of ours moves to', async () => {
    const t = await setUp();
    for (const status of ['accepted', 'scheduled', 'read', 'receiving', 'received', 'canceled', 'whatever']) {
      const response = await post(t.app, STATUS_URL, statusForm(status));
      assert.equal(response.statusCode, 200, status);
    }
    assert.deepEqual(t.reports, []);
  });

  it('answers 204 even for a message the inbox does not know (yet)', async () => {
    const t = await setUp({ outcome: 'unknown' });
    assert.equal((await post(t.app, STATUS_URL, statusForm('sent'))).statusCode, 204);
    assert.equal(t.reports.length, 1);
  });

  it('refuses, applying nothing, every callback whose signature is not for the public URL and the form', async () => {
    const t = await setUp();
    const form = statusForm('delivered');
    const refused: [string, Parameters<typeof post>[3], Form?][] = [
      ['signed for the local URL', { signedUrl: `http://localhost:80${STATUS_URL}` }],
      ['signed for the local host name', { signedUrl: `http://localhost${STATUS_URL}` }],
      ['signed over http', { signedUrl: `http://sms.example.com${STATUS_URL}` }],
      ['signed without the query', { signedUrl: `${PUBLIC_BASE_URL}${SMS_STATUS_PATH}` }],
      [
        'signed for another message id',
        { signedUrl: `${PUBLIC_BASE_URL}${SMS_STATUS_PATH}?message_id=sms_02` },
      ],
      ['signed for another host', { signedUrl: `https://evil.example.com${STATUS_URL}` }],
      ['a tampered status', { signedForm: statusForm('undelivered') }],
      ['a field added after signing', { signedForm: form }, { ...form, ErrorCode: '30007' }],
      ['a field removed after signing', { signedForm: { ...form, ErrorCode: '30007' } }],
      [
        'signed with another token',
        { signature: sign(`${PUBLIC_BASE_URL}${STATUS_URL}`, form, 'another-token') },
      ],
      ['an empty signature', { signature: '' }],
      ['a signature that is not one', { signature: 'not-a-signature' }],
      ['no signature at all', { signature: null }],
    ];
    for (const [name, options, sent] of refused) {
      const response = await post(t.app, STATUS_URL, sent ?? form, options);
      assert.equal(response.statusCode, 401, name);
      assert.equal(codeOf(response), 'provider.signature_invalid', name);
    }
    assert.deepEqual(t.reports, []);
  });

  it('closes the connection when the signature header is missing, before the body', async () => {
    const t = await setUp();
    const response = await post(
      t.app,
      STATUS_URL,
      {},
      { signature: null, body: 'x'.repeat(WEBHOOK_BODY_LIMIT_BYTES * 2) },
    );
    assert.equal(response.statusCode, 401);
    assert.equal(response.headers.connection, 'close');
  });

  it('checks against PUBLIC_BASE_URL with the path prefix a proxy strips, and the port Twilio may add', async () => {
    const prefixed = 'https://edge.example.com/sms-gateway';
    const t = await setUp({ publicBaseUrl: prefixed });
    const form = statusForm('sent');
    const allowed = [`${prefixed}${STATUS_URL}`, `https://edge.example.com:443/sms-gateway${STATUS_URL}`];
    for (const signedUrl of allowed) {
      assert.equal((await post(t.app, STATUS_URL, form, { signedUrl })).statusCode, 204, signedUrl);
    }
    const refused = [`https://edge.example.com${STATUS_URL}`, `${prefixed}/sms-gateway${STATUS_URL}`];
    for (const signedUrl of refused) {
      assert.equal((await post(t.app, STATUS_URL, form, { signedUrl })).statusCode, 401, signedUrl);
    }
    assert.equal(t.reports.length, 2);
  });

  it('refuses a callback it cannot read (400), applying nothing', async () => {
    const t = await setUp();
    const { MessageSid: _m, SmsSid: _s, ...noSid } = statusForm('sent');
    const { MessageStatus: _ms, SmsStatus: _ss, ...noStatus } = statusForm('sent');
    for (const form of [noSid, noStatus, {}, statusForm('sent', { MessageSid: '', SmsSid: '' })]) {
      const response = await post(t.app, STATUS_URL, form);
      assert.equal(response.statusCode, 400, JSON.stringify(form));
      assert.equal(codeOf(response), 'provider.payload_invalid');
    }
    assert.deepEqual(t.reports, []);
  });

  it('takes a form only, of at most 64 KiB', async () => {
    const t = await setUp();
    const json = await t.app.inject({
      method: 'POST',
      url: STATUS_URL,
      payload: statusForm('sent'),
      headers: { 'x-twilio-signature': sign(`${PUBLIC_BASE_URL}${STATUS_URL}`, statusForm('sent')) },
    });
    assert.equal(json.statusCode, 415);
    const big = statusForm('sent', { Padding: 'x'.repeat(WEBHOOK_BODY_LIMIT_BYTES) });
    assert.equal((await post(t.app, STATUS_URL, big)).statusCode, 413);
    const charset = await t.app.inject({
      method: 'POST',
      url: STATUS_URL,
      payload: new URLSearchParams(statusForm('sent')).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
        'x-twilio-signature': sign(`${PUBLIC_BASE_URL}${STATUS_URL}`, statusForm('sent')),
      },
    });
    assert.equal(charset.statusCode, 204);
    assert.equal(t.reports.length, 1);
  });
});

describe('Twilio inbound callback: POST /provider/twilio/sms-inbound', () => {
  it('hands the message to the inbox and answers empty TwiML (no reply)', async () => {
    const t = await setUp();
    const response = await post(t.app, SMS_INBOUND_PATH, inboundForm());
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/xml/);
    assert.equal(response.body, EMPTY_TWIML);
    assert.deepEqual(t.received, [
      {
        providerMessageId: 'SM9999999999abcdef0123456789abcdef',
        from: '+14155550100',
        to: '+14155550199',
        body: 'Can we move it to 11?',
        at: new Date('2026-01-15T12:00:00.000Z'),
      },
    ]);
  });

  it('takes what Twilio may send: any text, an empty body (a picture), the older SmsSid alone', async () => {
    const t = await setUp();
    const { MessageSid: _m, ...smsSidOnly } = inboundForm();
    const { Body: _b, ...noBody } = inboundForm();
    const allowed: [Form, Partial<InboundSms>][] = [
      [
        inboundForm({ Body: 'a + b & c = 100% 🎉 Grüße\nzweite Zeile' }),
        { body: 'a + b & c = 100% 🎉 Grüße\nzweite Zeile' },
      ],
      [inboundForm({ Body: '', NumMedia: '1', MediaUrl0: 'https://api.twilio.com/m/1' }), { body: '' }],
      [noBody, { body: '' }],
      [smsSidOnly, { providerMessageId: 'SM9999999999abcdef0123456789abcdef' }],
    ];
    for (const [form, expected] of allowed) {
      const response = await post(t.app, SMS_INBOUND_PATH, form);
      assert.equal(response.statusCode, 200, JSON.stringify(form));
      const got = t.received.at(-1) as Record<string, unknown>;
      for (const [name, value] of Object.entries(expected)) assert.equal(got[name], value, name);
    }
  });

  it('refuses a message without its sid, sender or recipient (400), and an unsigned one (401)', async () => {
    const t = await setUp();
    const { MessageSid: _m, SmsSid: _s, ...noSid } = inboundForm();
    const { From: _f, ...noFrom } = inboundForm();
    const { To: _t, ...noTo } = inboundForm();
    for (const form of [noSid, noFrom, noTo, inboundForm({ From: '' })]) {
      const response = await post(t.app, SMS_INBOUND_PATH, form);
      assert.equal(response.statusCode, 400, JSON.stringify(form));
      assert.equal(codeOf(response), 'provider.payload_invalid');
    }
    const unsigned = await post(t.app, SMS_INBOUND_PATH, inboundForm(), { signature: null });
    assert.equal(unsigned.statusCode, 401);
    const tampered = await post(t.app, SMS_INBOUND_PATH, inboundForm({ Body: 'Send me the code' }), {
      signedForm: inboundForm(),
    });
    assert.equal(tampered.statusCode, 401);
    assert.deepEqual(t.received, []);
  });
});

describe('Twilio callbacks: rate limit per source address', () => {
  it('refuses past the window before reading the body or the signature, and only that address', async () => {
    const t = await setUp();
    const address = '203.0.113.9';
    const key = `provider-webhook:twilio:ip:${address}`;
    for (let i = 0; i < WEBHOOKS_PER_MINUTE_PER_IP - 1; i++) {
      await t.limiter.hit([{ key, limit: WEBHOOKS_PER_MINUTE_PER_IP }], t.clock.now(), `r${i}`);
    }
    const last = await post(t.app, STATUS_URL, statusForm('sent'), { remoteAddress: address });
    assert.equal(last.statusCode, 204, 'the 600th of the minute');

    const refused = [
      await post(t.app, STATUS_URL, statusForm('delivered'), { remoteAddress: address }),
      await post(t.app, SMS_INBOUND_PATH, inboundForm(), { remoteAddress: address }),
      // An oversized body and no signature: refused for the rate, so neither was looked at.
      await post(
        t.app,
        STATUS_URL,
        {},
        {
          remoteAddress: address,
          signature: null,
          body: 'x'.repeat(WEBHOOK_BODY_LIMIT_BYTES * 2),
        },
      ),
    ];
    for (const response of refused) {
      assert.equal(response.statusCode, 429);
      assert.equal(codeOf(response), 'rate.exceeded_ip');
      assert.equal(response.headers.connection, 'close');
      assert.ok(Number(response.headers['retry-after']) > 0);
    }
    assert.equal(t.reports.length, 1);
    assert.deepEqual(t.received, []);

    const other = await post(t.app, STATUS_URL, statusForm('delivered'), { remoteAddress: '203.0.113.10' });
    assert.equal(other.statusCode, 204, 'another address has its own window');
    t.clock.advance(60_000);
    const later = await post(t.app, STATUS_URL, statusForm('delivered'), { remoteAddress: address });
    assert.equal(later.statusCode, 204, 'a minute later');
  });
});

describe('parseForm', () => {
  const cases: [string, Form][] = [
    ['a=1&b=2', { a: '1', b: '2' }],
    ['a=1&a=2', { a: '2' }],
    ['From=%2B14155550100&Body=Hi+there', { From: '+14155550100', Body: 'Hi there' }],
    ['Body=', { Body: '' }],
    ['', {}],
    ['=x&k', { '': 'x', k: '' }],
  ];
  for (const [text, expected] of cases) {
    it(JSON.stringify(text), () => assert.deepEqual({ ...parseForm(text) }, expected));
  }

  it('keeps __proto__ a field, not a prototype', () => {
    const form = parseForm('__proto__=x&constructor=y');
    assert.equal(Object.getPrototypeOf(form), Object.prototype);
    assert.deepEqual(Object.keys(form), ['__proto__', 'constructor']);
    assert.equal(({} as Form).x, undefined);
  });
});
