import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ManualClock } from '../clock.ts';
import type { SendSmsRequest, SmsProviderError, SmsResult } from '../sms/index.ts';
import {
  type FakeAnswer,
  type FakeTwilio,
  startFakeTwilio,
  twilioDate,
  twilioError,
} from '../testing/fake-twilio.ts';
import { captureLogs } from '../testing/log-capture.ts';
import { routed } from './client.ts';
import { createTwilio, SMS_STATUS_PATH, type Twilio, type TwilioSettings } from './index.ts';

const ACCOUNT_SID = 'AC0123456789abcdef0123456789abcdef';
const AUTH_TOKEN = 'contract-auth-token-5f1e2d3c4b5a6978';
const SERVICE_SID = 'MG0123456789abcdef0123456789abcdef';
const PUBLIC_BASE_URL = 'https://sms.example.com/gateway';
const FROM = '+14155550199';
const TO = '+14155550100';
const TIMEOUT_MS = 300;

const valueIn = <T>(result: SmsResult<T>): T => {
  if (!result.ok) assert.fail(`expected a value, got ${JSON.stringify(result.error)}`);
  return result.value;
};
const errorOf = <T>(result: SmsResult<T>): SmsProviderError => {
  if (result.ok) assert.fail(`expected an error, got ${JSON.stringify(result.value)}`);
  return result.error;
};

/** Waits for a condition the server side reaches a moment after the client (a closed socket seen). */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(condition(), what);
}

let seq = 0;
/** A recipient no other test scripts. */
const recipient = (): string => `+1415556${String(1000 + seq++).padStart(4, '0')}`;

const message = (fields: Partial<SendSmsRequest> = {}): SendSmsRequest => ({
  messageId: `sms_${seq++}`,
  from: FROM,
  to: TO,
  body: 'Your appointment is at 10:00.',
  ...fields,
});

describe('Twilio provider against a local fake of the REST API (through the SDK)', () => {
  const clock = new ManualClock('2026-01-15T12:00:00.000Z');
  const logs = captureLogs();
  let fake: FakeTwilio;
  let twilio: Twilio;
  const make = (settings: Partial<TwilioSettings> = {}): Twilio =>
    createTwilio({
      settings: {
        accountSid: ACCOUNT_SID,
        authToken: AUTH_TOKEN,
        apiBaseUrl: fake.url,
        publicBaseUrl: PUBLIC_BASE_URL,
        ...settings,
      },
      clock,
      logger: logs.logger,
      timeoutMs: TIMEOUT_MS,
    });

  before(async () => {
    fake = await startFakeTwilio({ accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, now: () => clock.now() });
    twilio = make();
  });
  after(() => fake.close());
  beforeEach(() => {
    fake.reset();
    logs.lines.length = 0;
  });

  describe('send', () => {
    it('creates the message from the assistant number, with a status callback naming our id under PUBLIC_BASE_URL', async () => {
      const sent = valueIn(await twilio.provider.send(message({ messageId: 'sms_01HZ&x y' })));
      assert.match(sent.providerMessageId, /^SM[0-9a-f]{32}$/);
      assert.equal(sent.status, 'queued');
      const [request] = fake.requests;
      assert.equal(request?.method, 'POST');
      assert.equal(request?.path, `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`);
      assert.equal(request?.authorized, true);
      assert.deepEqual(request?.form, {
        To: TO,
        From: FROM,
        Body: 'Your appointment is at 10:00.',
        StatusCallback: `${PUBLIC_BASE_URL}${SMS_STATUS_PATH}?message_id=sms_01HZ%26x%20y`,
      });
      assert.equal(
        new URL(request?.form.StatusCallback ?? '').searchParams.get('message_id'),
        'sms_01HZ&x y',
      );
      assert.ok(fake.messages.has(sent.providerMessageId));
    });

    it('sends through the Messaging Service when one is configured: no From, and `accepted` is still queued', async () => {
      const viaService = make({ messagingServiceSid: SERVICE_SID });
      const sent = valueIn(await viaService.provider.send(message()));
      assert.equal(sent.status, 'queued');
      const form = fake.requests[0]?.form ?? {};
      assert.equal(form.MessagingServiceSid, SERVICE_SID);
      assert.equal('From' in form, false);
      assert.equal(fake.messages.get(sent.providerMessageId)?.status, 'accepted');
    });

    it('takes both base URLs with a trailing slash', async () => {
      const slashed = make({ apiBaseUrl: `${fake.url}/`, publicBaseUrl: `${PUBLIC_BASE_URL}/` });
      valueIn(await slashed.provider.send(message({ messageId: 'sms_slash' })));
      assert.equal(fake.requests[0]?.path, `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`);
      assert.equal(
        fake.requests[0]?.form.StatusCallback,
        `${PUBLIC_BASE_URL}${SMS_STATUS_PATH}?message_id=sms_slash`,
      );
    });

    it('sends what must go through: long, unicode and emoji bodies, any number format Twilio takes', async () => {
      const allowed: Partial<SendSmsRequest>[] = [
        { body: 'x'.repeat(1600) },
        { body: 'Grüße aus Köln: 10 € · 日本語 · 🎉' },
        { body: 'a+b=c&d=e%20f' },
        { to: '+447700900123' },
        { from: '+33612345678' },
      ];
      for (const fields of allowed) {
        const sent = valueIn(await twilio.provider.send(message(fields)));
        const stored = fake.messages.get(sent.providerMessageId);
        assert.equal(stored?.body, fields.body ?? 'Your appointment is at 10:00.');
        assert.equal(stored?.to, fields.to ?? TO);
      }
    });

    const REFUSALS: [number, 'opted_out' | 'unreachable' | 'sender_unavailable'][] = [
      [21610, 'opted_out'],
      [21211, 'unreachable'],
      [21614, 'unreachable'],
      [21612, 'unreachable'],
      [21408, 'unreachable'],
      [21217, 'unreachable'],
      [21606, 'sender_unavailable'],
      [21659, 'sender_unavailable'],
      [21660, 'sender_unavailable'],
      [21212, 'sender_unavailable'],
    ];
    for (const [code, reason] of REFUSALS) {
      it(`maps Twilio error ${code} to refused: ${reason}`, async () => {
        const to = recipient();
        fake.onSendTo(to, twilioError(code));
        const error = errorOf(await twilio.provider.send(message({ to })));
        assert.deepEqual(
          { ...error, detail: undefined },
          {
            code: 'refused',
            reason,
            retryable: false,
            providerCode: String(code),
            httpStatus: 400,
            detail: undefined,
          },
        );
        assert.match(error.detail, new RegExp(`error ${code}`));
      });
    }

    it("answers Twilio's magic test numbers as its test credentials do", async () => {
      const cases: [Partial<SendSmsRequest>, string, string][] = [
        [{ to: '+15005550004' }, 'opted_out', '21610'],
        [{ to: '+15005550009' }, 'unreachable', '21614'],
        [{ to: '+15005550001' }, 'unreachable', '21211'],
        [{ from: '+15005550007' }, 'sender_unavailable', '21606'],
      ];
      for (const [fields, reason, providerCode] of cases) {
        const error = errorOf(await twilio.provider.send(message(fields)));
        assert.equal(error.code, 'refused');
        assert.deepEqual(error.code === 'refused' && [error.reason, error.providerCode], [
          reason,
          providerCode,
        ]);
      }
    });

    it('reads a refusal in an RFC 9457 body (TwilioServiceException) as in the legacy one', async () => {
      const to = recipient();
      const body = {
        type: 'https://www.twilio.com/docs/errors/21610',
        title: 'Unsubscribed',
        status: 400,
        code: 21610,
      };
      fake.onSendTo(to, { kind: 'raw', status: 400, body: JSON.stringify(body) });
      const error = errorOf(await twilio.provider.send(message({ to })));
      assert.equal(error.code === 'refused' && error.reason, 'opted_out');
    });

    it('refuses nothing else: other 4xx codes are unavailable and not worth retrying, auth failures are', async () => {
      const cases: [FakeAnswer, Partial<SmsProviderError>][] = [
        [twilioError(21602), { code: 'unavailable', retryable: false, httpStatus: 400 }],
        [twilioError(30003), { code: 'unavailable', retryable: false, httpStatus: 400 }],
        [twilioError(20003, 401), { code: 'unavailable', retryable: true, httpStatus: 401 }],
        [twilioError(20003, 403), { code: 'unavailable', retryable: true, httpStatus: 403 }],
        [twilioError(20404, 404), { code: 'unavailable', retryable: false, httpStatus: 404 }],
      ];
      for (const [answer, expected] of cases) {
        const to = recipient();
        fake.onSendTo(to, answer);
        const error = errorOf(await twilio.provider.send(message({ to })));
        assert.deepEqual(
          { code: error.code, retryable: error.retryable, httpStatus: error.httpStatus },
          expected,
        );
      }
    });

    it('is busy on 429 or code 20429, for as long as Retry-After says (seconds or a date), else 1 s', async () => {
      const inThirty = twilioDate(new Date(clock.now().getTime() + 30_000));
      const cases: [FakeAnswer, number][] = [
        [twilioError(20429, 429, { 'retry-after': '7' }), 7],
        [twilioError(null, 429), 1],
        [twilioError(20429, 429, { 'retry-after': inThirty }), 30],
        [twilioError(20429, 503), 1],
        [twilioError(20429, 429, { 'retry-after': 'soon' }), 1],
      ];
      for (const [answer, seconds] of cases) {
        const to = recipient();
        fake.onSendTo(to, answer);
        const error = errorOf(await twilio.provider.send(message({ to })));
        assert.equal(error.code, 'busy');
        assert.equal(error.retryable, true);
        assert.equal(error.code === 'busy' && error.retryAfterSeconds, seconds);
      }
    });

    it("keeps each concurrent request's Retry-After its own", async () => {
      const [a, b, c] = [recipient(), recipient(), recipient()];
      fake.onSendTo(a, twilioError(20429, 429, { 'retry-after': '9' }));
      fake.onSendTo(b, twilioError(20429, 429));
      fake.onSendTo(c, twilioError(20429, 429, { 'retry-after': '3' }));
      const results = await Promise.all([a, b, c].map((to) => twilio.provider.send(message({ to }))));
      assert.deepEqual(
        results.map((r) => {
          const error = errorOf(r);
          return error.code === 'busy' && error.retryAfterSeconds;
        }),
        [9, 1, 3],
      );
    });

    it('is unavailable (retryable, with the status) on 5xx', async () => {
      for (const status of [500, 502, 503]) {
        const to = recipient();
        fake.onSendTo(to, twilioError(null, status));
        const error = errorOf(await twilio.provider.send(message({ to })));
        assert.deepEqual([error.code, error.retryable, error.httpStatus], ['unavailable', true, status]);
      }
    });

    it('is unavailable without a status when nothing answers at the address', async () => {
      const nowhere = make({ apiBaseUrl: 'http://127.0.0.1:1' });
      const error = errorOf(await nowhere.provider.send(message()));
      assert.equal(error.code, 'unavailable');
      assert.equal(error.httpStatus, undefined);
      assert.match(error.detail, /ECONNREFUSED/);
    });

    it('times out within the timeout on a request that hangs, and abandons it', async () => {
      const to = recipient();
      fake.onSendTo(to, { kind: 'hang' });
      const started = performance.now();
      const error = errorOf(await twilio.provider.send(message({ to })));
      const elapsed = performance.now() - started;
      assert.equal(error.code, 'timeout');
      assert.equal(error.retryable, true);
      assert.ok(elapsed >= TIMEOUT_MS - 20 && elapsed < TIMEOUT_MS + 400, `answered after ${elapsed} ms`);
      await eventually(() => fake.hung.abandoned === 1, 'the hung request was aborted');
    });

    it('reads a drifted answer without a crash: a send with a missing sid or unknown status is unconfirmed (timeout, not retried), named in the log', async () => {
      const cases: [string, (w: Record<string, unknown>) => unknown, RegExp][] = [
        ['sid missing', ({ sid: _sid, ...w }) => w, /sid: missing/],
        ['sid empty', (w) => ({ ...w, sid: '' }), /sid: "", not one we know/],
        ['unknown status', (w) => ({ ...w, status: 'teleported' }), /status: "teleported", not one we know/],
        ['status as a number', (w) => ({ ...w, status: 3 }), /status: 3, not one we know/],
        ['a null answer', () => null, /./],
        ['a list', (w) => [w], /./],
      ];
      for (const [name, reshape, named] of cases) {
        const to = recipient();
        fake.onSendTo(to, { kind: 'reshape', reshape });
        logs.lines.length = 0;
        const error = errorOf(await twilio.provider.send(message({ to })));
        assert.equal(error.code, 'timeout', name);
        assert.equal(error.retryable, false, name);
        assert.match(error.detail, named, name);
        const warned = logs.lines.filter((l) => l.operation === 'messages.create');
        assert.equal(warned.length, 1, `${name}: logged once`);
        assert.equal(warned[0]?.level, 40, name);
      }
    });

    it('says of an unreadable 2xx send that the message may have gone all the same', async () => {
      const to = recipient();
      fake.onSendTo(to, { kind: 'reshape', reshape: (w) => ({ ...w, status: 'teleported' }) });
      const error = errorOf(await twilio.provider.send(message({ to })));
      assert.equal(error.httpStatus, 201);
      assert.match(error.detail, /may be on its way/);
    });

    it('takes drift it does not need: extra fields, numbers as strings and strings as numbers', async () => {
      const to = recipient();
      fake.onSendTo(to, {
        kind: 'reshape',
        reshape: (w) => ({
          ...w,
          num_segments: 2,
          num_media: 0,
          price: -0.0079,
          error_code: '0',
          brand_new_field: { nested: [1, 2] },
          date_updated: 'yesterday',
        }),
      });
      const sent = valueIn(await twilio.provider.send(message({ to })));
      assert.equal(sent.status, 'queued');
    });

    it('is unconfirmed (timeout) on a 2xx send whose body is not JSON', async () => {
      const to = recipient();
      fake.onSendTo(to, {
        kind: 'raw',
        status: 201,
        body: '<html>maintenance</html>',
        contentType: 'text/html',
      });
      const error = errorOf(await twilio.provider.send(message({ to })));
      assert.deepEqual([error.code, error.httpStatus], ['timeout', 201]);
    });
  });

  describe('status', () => {
    for (const status of ['queued', 'sending', 'sent', 'delivered', 'undelivered', 'failed'] as const) {
      it(`reads ${status}`, async () => {
        const sid = fake.addMessage({ status });
        const report = valueIn(await twilio.provider.status(sid));
        assert.deepEqual(report, {
          providerMessageId: sid,
          status,
          errorCode: null,
          errorMessage: null,
          at: new Date('2026-01-15T12:00:00.000Z'),
        });
        assert.equal(fake.requests[0]?.path, `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages/${sid}.json`);
      });
    }

    it("reads Twilio's statuses on the way to ours: accepted and scheduled are queued, read is delivered", async () => {
      for (const [theirs, ours] of [
        ['accepted', 'queued'],
        ['scheduled', 'queued'],
        ['read', 'delivered'],
      ]) {
        const sid = fake.addMessage({ status: theirs });
        assert.equal(valueIn(await twilio.provider.status(sid)).status, ours);
      }
    });

    it('does not read a status it does not know as any of ours: unavailable, named in the log', async () => {
      for (const status of ['receiving', 'received', 'canceled', 'partially_delivered', 'teleported', '']) {
        const sid = fake.addMessage({ status });
        logs.lines.length = 0;
        const error = errorOf(await twilio.provider.status(sid));
        assert.equal(error.code, 'unavailable', status);
        assert.match(error.detail, /status: /, status);
        assert.deepEqual(logs.lines[0]?.fields, [`status: ${JSON.stringify(status)}, not one we know`]);
      }
    });

    const CODES: [number, 'undelivered' | 'failed', RegExp][] = [
      [30003, 'undelivered', /Unreachable destination handset/],
      [30004, 'undelivered', /Message blocked/],
      [30005, 'undelivered', /Unknown destination handset/],
      [30006, 'undelivered', /Landline or unreachable carrier/],
      [30007, 'undelivered', /filtered by the carrier/],
      [30008, 'undelivered', /Unknown error/],
      [21610, 'failed', /unsubscribed .*replied STOP/],
      [21211, 'failed', /'To' number is not a valid phone number/],
      [21614, 'failed', /not a mobile number/],
      [30450, 'failed', /Twilio reported error 30450/],
    ];
    for (const [code, status, sentence] of CODES) {
      it(`reads ${status} with error ${code} and one sentence for it`, async () => {
        const sid = fake.addMessage({ status, error_code: code, error_message: null });
        const report = valueIn(await twilio.provider.status(sid));
        assert.equal(report.status, status);
        assert.equal(report.errorCode, String(code));
        assert.match(report.errorMessage ?? '', sentence);
        assert.match(report.errorMessage ?? '', /^[^\n]+\.$/);
      });
    }

    it('dates the report by date_updated', async () => {
      const sid = fake.addMessage({ status: 'sent' });
      clock.advance(90_000);
      fake.update(sid, { status: 'delivered' });
      clock.advance(60_000);
      const report = valueIn(await twilio.provider.status(sid));
      assert.deepEqual([report.status, report.at], ['delivered', new Date('2026-01-15T12:01:30.000Z')]);
      clock.set('2026-01-15T12:00:00.000Z');
    });

    it('reads the drift it can do without: an error code as a string, a date it cannot read (then now)', async () => {
      const sid = fake.addMessage({ status: 'undelivered' });
      fake.onFetch(sid, {
        kind: 'reshape',
        reshape: (w) => ({ ...w, error_code: '30005', date_updated: 'not a date', extra: true }),
      });
      const report = valueIn(await twilio.provider.status(sid));
      assert.deepEqual([report.errorCode, report.at], ['30005', clock.now()]);
      assert.deepEqual(logs.lines.at(-1)?.fields, ['date_updated: "not a date", not one we know']);
    });

    it('is not_found for a message Twilio does not know, and for a SID that is none, without asking', async () => {
      const unknown = errorOf(await twilio.provider.status(`SM${'f'.repeat(32)}`));
      assert.deepEqual([unknown.code, unknown.retryable, unknown.httpStatus], ['not_found', false, 404]);
      for (const sid of ['', '../Accounts', 'SM 1', `SM${'a'.repeat(100)}`]) {
        const error = errorOf(await twilio.provider.status(sid));
        assert.equal(error.code, 'not_found', JSON.stringify(sid));
      }
      assert.equal(fake.requests.length, 1);
    });

    it('maps failures of the fetch as of the send: 5xx, 429, hung, unauthorized', async () => {
      const sid = fake.addMessage({ status: 'sent' });
      const cases: [FakeAnswer, SmsProviderError['code'], number | undefined][] = [
        [twilioError(null, 503), 'unavailable', 503],
        [twilioError(20429, 429, { 'retry-after': '4' }), 'busy', 429],
        [{ kind: 'hang' }, 'timeout', undefined],
        [twilioError(20003, 401), 'unavailable', 401],
      ];
      for (const [answer, code, httpStatus] of cases) {
        fake.once(answer);
        const error = errorOf(await twilio.provider.status(sid));
        assert.deepEqual([error.code, error.httpStatus], [code, httpStatus]);
      }
    });
  });

  describe('failures are values, each logged once, and never with the auth token', () => {
    it('never throws, whatever comes back', async () => {
      const answers: FakeAnswer[] = [
        { kind: 'raw', status: 200, body: '' },
        { kind: 'raw', status: 200, body: '{' },
        { kind: 'raw', status: 500, body: 'Internal Server Error', contentType: 'text/plain' },
        { kind: 'raw', status: 400, body: 'null' },
        { kind: 'raw', status: 302, body: '' },
        { kind: 'reshape', reshape: () => 'a string' },
      ];
      const sid = fake.addMessage();
      for (const answer of answers) {
        fake.once(answer);
        const sent = await twilio.provider.send(message());
        fake.once(answer);
        const fetched = await twilio.provider.status(sid);
        assert.equal(typeof sent.ok, 'boolean');
        assert.equal(typeof fetched.ok, 'boolean');
      }
    });

    it('logs one warning per failed request, with the status, code and message, and no secret', async () => {
      const to = recipient();
      fake.onSendTo(to, twilioError(21610));
      await twilio.provider.send(message({ to }));
      const failures = logs.lines.filter((l) => l.provider === 'twilio');
      assert.equal(failures.length, 1);
      assert.equal(failures[0]?.status, 400);
      assert.equal(failures[0]?.twilio_code, '21610');
      assert.equal(failures[0]?.message, 'Attempt to send to unsubscribed recipient');

      const wrong = make({ authToken: 'a-wrong-token-of-a-length' });
      await wrong.provider.send(message());
      await twilio.check();
      const everything = JSON.stringify(logs.lines);
      const basic = Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64');
      assert.equal(everything.includes(AUTH_TOKEN), false);
      assert.equal(everything.includes(basic), false);
      assert.equal(everything.includes('a-wrong-token-of-a-length'), false);
    });
  });

  describe('check and numbers', () => {
    const number = (phone: string, sms: boolean, name = phone) => ({
      sid: `PN${phone.replace(/\D/g, '').padEnd(32, '0')}`,
      phone_number: phone,
      friendly_name: name,
      capabilities: { voice: true, sms, mms: sms, fax: false },
    });

    it('is ok, with the numbers that can text', async () => {
      fake.numbers.push(number('+14155550101', true, 'Front desk'), number('+14155550102', false));
      assert.deepEqual(await twilio.check(), { state: 'ok', detail: null, smsNumbers: ['+14155550101'] });
      assert.deepEqual(valueIn(await twilio.numbers()), [
        { number: '+14155550101', sms: true, friendlyName: 'Front desk' },
        { number: '+14155550102', sms: false, friendlyName: '+14155550102' },
      ]);
      assert.deepEqual(
        fake.requests.slice(0, 2).map((r) => r.path),
        [
          `/2010-04-01/Accounts/${ACCOUNT_SID}.json`,
          `/2010-04-01/Accounts/${ACCOUNT_SID}/IncomingPhoneNumbers.json`,
        ],
      );
    });

    it("follows the list's pages (their absolute URLs routed to the fake too)", async () => {
      fake.pageSizeLimit = 2;
      for (let i = 0; i < 5; i++) fake.numbers.push(number(`+1415555020${i}`, i % 2 === 0));
      const listed = valueIn(await twilio.numbers());
      assert.equal(listed.length, 5);
      assert.equal(fake.requests.length, 3);
      assert.deepEqual(
        listed.filter((n) => n.sms).map((n) => n.number),
        ['+14155550200', '+14155550202', '+14155550204'],
      );
    });

    it('reads SMS capability under its older name, and none as none (logged)', async () => {
      fake.numbers.push({ ...number('+14155550301', true), capabilities: { SMS: true } });
      fake.numbers.push({ ...number('+14155550302', true), capabilities: {} });
      assert.deepEqual(
        valueIn(await twilio.numbers()).map((n) => n.sms),
        [true, false],
      );
      assert.match(JSON.stringify(logs.lines.at(-1)?.fields), /capabilities\.sms: missing/);
    });

    it('says when the account has no number that can text', async () => {
      fake.numbers.push(number('+14155550401', false));
      const check = await twilio.check();
      assert.equal(check.state, 'ok');
      assert.match(check.detail ?? '', /no number that can send text messages/);
    });

    it('tells unauthorized, unreachable and failing apart', async () => {
      assert.equal((await make({ authToken: 'wrong-token' }).check()).state, 'unauthorized');
      assert.equal((await make({ apiBaseUrl: 'http://127.0.0.1:1' }).check()).state, 'unreachable');
      fake.once({ kind: 'hang' });
      assert.equal((await twilio.check()).state, 'unreachable');
      fake.once(twilioError(null, 500));
      assert.equal((await twilio.check()).state, 'failing');
      fake.once({ kind: 'raw', status: 200, body: '<html>maintenance</html>', contentType: 'text/html' });
      assert.equal((await twilio.check()).state, 'failing');
      fake.account.status = 'suspended';
      const suspended = await twilio.check();
      assert.equal(suspended.state, 'failing');
      assert.match(suspended.detail ?? '', /is suspended/);
      fake.account.status = 'active';
      fake.numbers.push({ ...number('+14155550501', true), phone_number: '' });
      const drifted = await twilio.check();
      assert.deepEqual([drifted.state, drifted.smsNumbers], ['failing', []]);
      assert.match(drifted.detail ?? '', /phone_number/);
    });
  });

  describe('routing the SDK to TWILIO_API_BASE_URL', () => {
    const cases: [string, string, string][] = [
      [
        'https://api.twilio.com/2010-04-01/Accounts/AC1/Messages.json',
        'http://127.0.0.1:9',
        'http://127.0.0.1:9/2010-04-01/Accounts/AC1/Messages.json',
      ],
      [
        'https://api.twilio.com/2010-04-01/Accounts/AC1/IncomingPhoneNumbers.json?PageSize=2&Page=1',
        'https://proxy.example.com/twilio',
        'https://proxy.example.com/twilio/2010-04-01/Accounts/AC1/IncomingPhoneNumbers.json?PageSize=2&Page=1',
      ],
      [
        'https://api.sydney.au1.twilio.com/2010-04-01/Accounts/AC1.json',
        'https://api.twilio.com',
        'https://api.twilio.com/2010-04-01/Accounts/AC1.json',
      ],
      [
        'https://example.com/2010-04-01/x.json',
        'http://127.0.0.1:9',
        'https://example.com/2010-04-01/x.json',
      ],
      ['https://nottwilio.com/x', 'http://127.0.0.1:9', 'https://nottwilio.com/x'],
      ['https://twilio.com.evil.example/x', 'http://127.0.0.1:9', 'https://twilio.com.evil.example/x'],
    ];
    for (const [uri, base, expected] of cases) {
      it(`${uri} with ${base}`, () => assert.equal(routed(uri, base), expected));
    }
  });
});
