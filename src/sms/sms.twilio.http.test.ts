import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import twilioSdk from 'twilio';
import { type FakeTwilio, startFakeTwilio, twilioError } from '../testing/fake-twilio.ts';
import {
  advance,
  assertProblem,
  type Caller,
  newAssistant,
  newCaller,
} from '../testing/outbound.fixtures.ts';
import { DELIVERED, sendSms, smsPair } from '../testing/sms.fixtures.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';
import { reconcileMessages } from './sms-reconcile.ts';

const ACCOUNT = `AC${'1'.repeat(32)}`;
const TOKEN = 'twilio-auth-token-for-tests';
/** What the operator configured at Twilio: a proxy in front, under a path prefix. */
const PUBLIC = 'https://sms.example.com/edge';

/**
 * SMS_PROVIDER=twilio through the real app and the official SDK, against a local fake of Twilio's REST API: a message
 * sent, its status callbacks (signed for the public URL, late, repeated, out of order), a reply, STOP, Twilio's own
 * refusals, a send that times out, and reconciliation of lost callbacks.
 */
describe('SMS over Twilio (SMS_PROVIDER=twilio, against a fake)', () => {
  let t: TestApp;
  let fake: FakeTwilio;
  before(async () => {
    fake = await startFakeTwilio({ accountSid: ACCOUNT, authToken: TOKEN });
    t = await startTestApp({
      sms: {
        twilio: { accountSid: ACCOUNT, authToken: TOKEN, apiBaseUrl: fake.url, publicBaseUrl: PUBLIC },
        // Short, for the sends that hang; not shorter: a first send on a machine running both CI passes at once
        // missed 500 ms against the local fake.
        timeoutMs: 2_000,
      },
    });
  });
  beforeEach(() => fake.reset());
  after(async () => {
    await t.close();
    await fake.close();
  });

  /** A form POST to one of our Twilio callbacks, signed as Twilio signs it: for the public URL it called. */
  function callback(path: string, form: Record<string, string>, o: { signFor?: string } = {}) {
    const signature = twilioSdk.getExpectedTwilioSignature(TOKEN, o.signFor ?? `${PUBLIC}${path}`, form);
    return t.request('POST', path, {
      rawBody: new URLSearchParams(form).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    });
  }
  const sends = () => fake.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/Messages.json'));
  const messageRow = (id: string) =>
    t.db.selectFrom('sms_messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const eventsOf = (id: string) =>
    t.db.selectFrom('events').select(['type', 'data']).where('message_id', '=', id).execute();

  async function sent(c: Caller, body: Record<string, unknown> = {}) {
    const res = await sendSms(t, c, body);
    assert.equal(res.status, 201, res.text);
    const row = await messageRow(res.body.id);
    return { id: String(res.body.id), sid: row.provider_message_id ?? '' };
  }

  it('sends with a status callback to the public URL; signed callbacks move it to delivered, once', async () => {
    const c = await newCaller(t);
    const { id, sid } = await sent(c);
    assert.match(sid, /^SM[0-9a-f]{32}$/);
    const [request] = sends();
    assert.deepEqual(
      [request?.form.To, request?.form.From, request?.form.StatusCallback],
      [DELIVERED, '+14155550102', `${PUBLIC}/provider/twilio/sms-status?message_id=${id}`],
    );
    const path = `/provider/twilio/sms-status?message_id=${id}`;
    const report = (status: string, extra: Record<string, string> = {}) =>
      callback(path, { MessageSid: sid, MessageStatus: status, AccountSid: ACCOUNT, ...extra });
    assert.equal((await report('sent')).status, 204);
    assert.equal((await report('delivered')).status, 204);
    assert.equal((await report('delivered')).status, 204, 'a repeat is answered, and changes nothing');
    assert.equal((await report('undelivered', { ErrorCode: '30003' })).status, 204);
    assert.equal((await report('sending')).status, 204, 'late');
    const got = await t.request('GET', `/api/v1/sms/messages/${id}`, { key: c.key });
    assert.equal(got.body.status, 'delivered');
    assert.deepEqual(
      got.body.status_history.map((h: { status: string }) => h.status),
      ['queued', 'sending', 'sent', 'delivered'],
    );
    assert.deepEqual(
      (await eventsOf(id)).map((e) => e.type),
      ['sms.sent'],
    );
  });

  it('changes nothing on a callback not signed for the public URL and the form (both directions)', async () => {
    const c = await newCaller(t);
    const { id, sid } = await sent(c);
    const path = `/provider/twilio/sms-status?message_id=${id}`;
    const form = { MessageSid: sid, MessageStatus: 'delivered' };
    const refused = [
      await callback(path, form, { signFor: `${t.url}${path}` }),
      await callback(path, form, { signFor: `${PUBLIC}/provider/twilio/sms-status` }),
      await t.request('POST', path, {
        rawBody: new URLSearchParams(form).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'AAAA' },
      }),
    ];
    for (const res of refused) assertProblem(res, 401, 'provider.signature_invalid');
    assert.equal((await messageRow(id)).status, 'queued');
    assert.equal((await callback(path, form)).status, 204);
    assert.equal((await messageRow(id)).status, 'delivered');
  });

  it('a reply to the assistant number is sms.received; STOP opts them out, and Twilio is not asked again', async () => {
    // A number of its own: every test customer's first assistant has +14155550102 (a number is one assistant's).
    const first = await newCaller(t);
    const c = {
      ...first,
      assistant: await newAssistant(t, first.customerId, { phoneNumbers: ['+14155557001'] }),
    };
    const inbound = (body: string, sid: string) =>
      callback('/provider/twilio/sms-inbound', {
        MessageSid: sid,
        AccountSid: ACCOUNT,
        From: DELIVERED,
        To: '+14155557001',
        Body: body,
      });
    const reply = await inbound('Yes, 3 pm works.', `SM${'a'.repeat(32)}`);
    assert.equal(reply.status, 200);
    assert.match(reply.text, /<Response><\/Response>/);
    assert.equal((await inbound('Yes, 3 pm works.', `SM${'a'.repeat(32)}`)).status, 200, 'a retried webhook');
    const list = await t.request('GET', '/api/v1/sms/messages?direction=inbound', { key: c.key });
    assert.equal(list.body.data.length, 1);
    assert.equal(list.body.data[0].body, 'Yes, 3 pm works.');
    assert.deepEqual(
      (await eventsOf(list.body.data[0].id)).map((e) => e.type),
      ['sms.received'],
    );
    await inbound('STOP', `SM${'b'.repeat(32)}`);
    const before = sends().length;
    assertProblem(await sendSms(t, c), 422, 'sms.recipient_opted_out');
    assert.equal(sends().length, before);
    const stranger = await callback('/provider/twilio/sms-inbound', {
      MessageSid: `SM${'c'.repeat(32)}`,
      From: DELIVERED,
      To: '+14155550999',
      Body: 'hello?',
    });
    assert.equal(stranger.status, 200, 'to a number no assistant has: answered, dropped');
  });

  it("maps Twilio's refusals and failures to our codes, and records nothing", async () => {
    const c = await newCaller(t);
    const cases: [string, ReturnType<typeof twilioError>, number, string][] = [
      ['+14155551610', twilioError(21610), 422, 'sms.recipient_opted_out'],
      ['+14155551211', twilioError(21211), 422, 'sms.number_unreachable'],
      ['+14155551614', twilioError(21614), 422, 'sms.number_unreachable'],
      ['+14155551429', twilioError(20429, 429, { 'retry-after': '7' }), 503, 'carrier.busy'],
      ['+14155551500', twilioError(null, 500), 502, 'carrier.unavailable'],
      ['+14155551503', twilioError(null, 503), 502, 'carrier.unavailable'],
    ];
    for (const [to, answer, status, code] of cases) {
      fake.onSendTo(to, answer);
      const res = await sendSms(t, c, { to_number: to });
      assertProblem(res, status, code);
      if (status === 503) assert.equal(res.headers['retry-after'], '7');
    }
    assert.equal((await t.request('GET', '/api/v1/sms/messages', { key: c.key })).body.data.length, 0);
    // Twilio's 21610 is remembered: the next send to them is refused here.
    const before = sends().length;
    assertProblem(await sendSms(t, c, { to_number: '+14155551610' }), 422, 'sms.recipient_opted_out');
    assert.equal(sends().length, before);
  });

  it('a send that hangs is kept queued and never sent twice; its callback, naming our id, attaches it', async () => {
    const c = await newCaller(t);
    fake.onSendTo('+14155551777', { kind: 'hang' });
    const first = await sendSms(t, c, { to_number: '+14155551777' }, { idempotencyKey: 'hang-1' });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.status, 'queued');
    const retry = await sendSms(t, c, { to_number: '+14155551777' }, { idempotencyKey: 'hang-1' });
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal(sends().length, 1, 'the hung send only: the retry replayed its answer');
    const sid = `SM${'d'.repeat(32)}`;
    const path = `/provider/twilio/sms-status?message_id=${first.body.id}`;
    assert.equal((await callback(path, { MessageSid: sid, MessageStatus: 'delivered' })).status, 204);
    const row = await messageRow(first.body.id);
    assert.deepEqual([row.provider_message_id, row.status], [sid, 'delivered']);
  });

  it('reconciliation asks Twilio about messages whose final status never came, and fails those it never confirmed', async () => {
    const c = await newCaller(t);
    const { id, sid } = await sent(c, { to_number: '+14155551234' });
    fake.onSendTo('+14155551778', { kind: 'hang' });
    const lost = await sendSms(t, c, { to_number: '+14155551778' });
    fake.update(sid, {
      status: 'undelivered',
      error_code: 30005,
      error_message: 'Unknown destination handset',
    });
    const reconcile = () =>
      reconcileMessages({
        db: t.db,
        clock: t.clock,
        afterSeconds: 300,
        providers: t.services.sms.carriers(),
      });
    assert.equal(await reconcile(), 0, 'not before SMS_RECONCILE_AFTER_SECONDS');
    await advance(t, 301);
    assert.ok((await reconcile()) >= 1);
    const row = await messageRow(id);
    assert.deepEqual([row.status, row.error_code], ['undelivered', '30005']);
    assert.match(row.error_message ?? '', /Unknown destination handset/);
    assert.equal(
      (await messageRow(lost.body.id)).status,
      'queued',
      'unconfirmed: waits an hour for word of it',
    );
    await advance(t, 3600);
    await reconcile();
    const failed = await messageRow(lost.body.id);
    assert.deepEqual([failed.status, failed.cost_usd], ['failed', '0.0000']);
    assert.deepEqual(
      (await eventsOf(lost.body.id)).map((e) => e.type),
      ['sms.sent'],
    );
  });

  it('a svc_test_ key never reaches Twilio: its messages go to the simulator', async () => {
    const { test } = await smsPair(t);
    const res = await sendSms(t, test);
    assert.equal(res.status, 201, res.text);
    assert.equal(sends().length, 0);
    assert.equal((await messageRow(res.body.id)).provider, 'simulator');
  });
});
