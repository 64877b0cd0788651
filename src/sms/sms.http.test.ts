import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SCOPES } from '../keys/scopes.ts';
import { advance, assertProblem, newCaller } from '../testing/outbound.fixtures.ts';
import {
  DELIVERED,
  FAILS,
  LANDLINE_REFUSED,
  OPTED_OUT,
  PROVIDER_DOWN,
  RATE_LIMITED,
  sendSms,
  smsPair,
  UNDELIVERED,
} from '../testing/sms.fixtures.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';
import { eventEnvelopeSchemas } from '../webhooks/envelope.ts';

const ID_RE = /^sms_[0-9a-f]{24}$/;

/** Text messages (issue 38) over the built-in simulator, through the real HTTPS app, with the production defaults. */
describe('POST /sms/send and reading messages', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const eventsOf = (messageId: string) =>
    t.db.selectFrom('events').selectAll().where('message_id', '=', messageId).execute();
  const ledger = (messageId: string) =>
    t.db
      .selectFrom('spend_reservations')
      .select(['amount_usd', 'state'])
      .where('message_id', '=', messageId)
      .executeTakeFirst();

  it('answers 201 queued, then moves to sent and delivered; sms.sent once, its cost settled in the ledger', async () => {
    const c = await newCaller(t);
    const res = await sendSms(t, c, { external_id: 'booking-1234', metadata: { booking_id: 'b_1234' } });
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.id, ID_RE);
    assert.equal(res.headers.location, `/api/v1/sms/messages/${res.body.id}`);
    assert.deepEqual(res.body, {
      id: res.body.id,
      livemode: true,
      direction: 'outbound',
      status: 'queued',
      assistant_id: c.assistant.id,
      from_number: '+14155550102',
      to_number: DELIVERED,
      body: 'See you Friday at 7 pm.',
      encoding: 'GSM-7',
      segments: 1,
      cost: '0.0079',
      error_code: null,
      error_message: null,
      external_id: 'booking-1234',
      metadata: { booking_id: 'b_1234' },
      created_at: t.clock.now().toISOString(),
      updated_at: t.clock.now().toISOString(),
    });
    assert.deepEqual(await ledger(res.body.id), { amount_usd: '0.0079', state: 'reserved' });
    await advance(t, 1);
    const sent = await t.request('GET', `/api/v1/sms/messages/${res.body.id}`, { key: c.key });
    assert.equal(sent.body.status, 'sent');
    await advance(t, 3);
    const done = await t.request('GET', `/api/v1/sms/messages/${res.body.id}`, { key: c.key });
    assert.equal(done.status, 200, done.text);
    assert.equal(done.body.status, 'delivered');
    assert.deepEqual(
      done.body.status_history.map((h: { status: string }) => h.status),
      ['queued', 'sent', 'delivered'],
    );
    assert.deepEqual(await ledger(res.body.id), { amount_usd: '0.0079', state: 'settled' });
    const events = await eventsOf(res.body.id);
    assert.equal(events.length, 1);
    const [event] = events;
    assert.equal(event?.type, 'sms.sent');
    assert.equal(event?.call_id, null);
    const envelope = eventEnvelopeSchemas['sms.sent'].parse({
      id: event?.id,
      event: event?.type,
      timestamp: event?.occurred_at.toISOString(),
      sequence: event?.sequence,
      livemode: event?.livemode,
      data: event?.data,
    });
    assert.equal(envelope.data.status, 'delivered');
    assert.equal(envelope.data.cost, 0.0079);
    assert.equal(envelope.data.external_id, 'booking-1234');
    assert.equal(envelope.data.sent_at, new Date(Date.parse(res.body.created_at) + 1000).toISOString());
  });

  it('counts segments: GSM-7 past 160 characters is 2 segments, an emoji makes it UCS-2; the estimate is per segment', async () => {
    const c = await newCaller(t);
    const long = await sendSms(t, c, { body: 'a'.repeat(161) });
    assert.equal(long.status, 201, long.text);
    assert.deepEqual([long.body.encoding, long.body.segments, long.body.cost], ['GSM-7', 2, '0.0158']);
    const emoji = await sendSms(t, c, { body: 'See you 🙂' });
    assert.deepEqual([emoji.body.encoding, emoji.body.segments], ['UCS-2', 1]);
    const euro = await sendSms(t, c, { body: '€'.repeat(80) });
    assert.deepEqual(
      [euro.body.encoding, euro.body.segments],
      ['GSM-7', 1],
      '€ takes two septets: 160 of them',
    );
  });

  it('refuses what cannot be sent, each with its code, and records nothing (both directions)', async () => {
    const c = await newCaller(t, { countries: ['US', 'GB'], limits: { countries: ['US', 'GB'] } });
    const cases: [Record<string, unknown>, number, string][] = [
      [{ body: '' }, 422, 'sms.body_empty'],
      [{ body: '   \n' }, 422, 'sms.body_empty'],
      [{ body: 'a'.repeat(1531) }, 422, 'sms.body_too_long'],
      [{ body: 'ж'.repeat(671) }, 422, 'sms.body_too_long'],
      [{ body: 'a'.repeat(1601) }, 422, 'input.invalid'],
      [{ to_number: '+442079460958' }, 422, 'sms.number_unreachable'],
      [{ to_number: '+33142685300' }, 403, 'outbound.country_not_allowed'],
      [{ to_number: '+19005550123' }, 403, 'outbound.number_not_allowed'],
      [{ from_number: '+14155550999' }, 422, 'sms.sender_unavailable'],
      [{ assistant_id: '00000000-0000-4000-8000-000000000000' }, 404, 'resource.not_found'],
      [{ to_number: LANDLINE_REFUSED }, 422, 'sms.number_unreachable'],
      [{ to_number: OPTED_OUT }, 422, 'sms.recipient_opted_out'],
      [{ to_number: PROVIDER_DOWN }, 502, 'carrier.unavailable'],
      [{ to_number: RATE_LIMITED }, 503, 'carrier.busy'],
    ];
    for (const [body, status, code] of cases) {
      const res = await sendSms(t, c, body);
      assertProblem(res, status, code);
      if (code === 'carrier.busy') assert.equal(res.headers['retry-after'], '1');
    }
    const allowed: Record<string, unknown>[] = [
      { body: 'a'.repeat(1530) },
      { body: 'ж'.repeat(670) },
      { to_number: '+447400123456' },
      { from_number: '+14155550102' },
    ];
    for (const body of allowed) assert.equal((await sendSms(t, c, body)).status, 201, JSON.stringify(body));
    const list = await t.request('GET', '/api/v1/sms/messages?limit=100', { key: c.key });
    assert.equal(list.body.data.length, allowed.length, 'only the messages sent are recorded');
  });

  it('a recipient the provider says opted out is refused here from then on, until they reply START', async () => {
    const { live, test } = await smsPair(t);
    assertProblem(await sendSms(t, test, { to_number: OPTED_OUT }), 422, 'sms.recipient_opted_out');
    // Test mode: the recipient texts STOP to a number that never sent them anything, then START.
    const inbound = (body: string, from = '+14155550177') =>
      t.request('POST', '/api/v1/test/inbound-sms', {
        key: test.key,
        body: { to_number: '+14155550102', from_number: from, body },
      });
    assert.equal((await inbound('Stop')).status, 201);
    const refused = await sendSms(t, test, { to_number: '+14155550177' });
    assertProblem(refused, 422, 'sms.recipient_opted_out');
    assert.match(refused.body.detail, /replied STOP/);
    assert.equal(
      (await sendSms(t, live, { to_number: '+14155550177' })).status,
      201,
      'live mode has its own list',
    );
    assert.equal((await inbound('START')).status, 201);
    assert.equal((await sendSms(t, test, { to_number: '+14155550177' })).status, 201);
  });

  it('failed costs nothing; undelivered is billed; each reports its carrier error in sms.sent', async () => {
    const c = await newCaller(t);
    const failed = await sendSms(t, c, { to_number: FAILS });
    const undelivered = await sendSms(t, c, { to_number: UNDELIVERED });
    await advance(t, 5);
    const f = await t.request('GET', `/api/v1/sms/messages/${failed.body.id}`, { key: c.key });
    assert.deepEqual([f.body.status, f.body.error_code, f.body.cost], ['failed', '30008', '0.0000']);
    assert.deepEqual(await ledger(failed.body.id), { amount_usd: '0.0000', state: 'settled' });
    const u = await t.request('GET', `/api/v1/sms/messages/${undelivered.body.id}`, { key: c.key });
    assert.deepEqual([u.body.status, u.body.error_code, u.body.cost], ['undelivered', '30003', '0.0079']);
    assert.match(u.body.error_message, /Unreachable/);
    const [event] = await eventsOf(failed.body.id);
    const data = event?.data as { status: string; sent_at: string | null } | undefined;
    assert.deepEqual([data?.status, data?.sent_at], ['failed', null]);
  });

  it('late, repeated and out-of-order reports never move a final status back nor repeat sms.sent', async () => {
    const c = await newCaller(t);
    const res = await sendSms(t, c);
    const row = await t.db
      .selectFrom('sms_messages')
      .select('provider_message_id')
      .where('id', '=', res.body.id)
      .executeTakeFirstOrThrow();
    const inbox = t.services.sms.inbox('simulator');
    const report = (status: 'sent' | 'delivered' | 'undelivered', seconds: number) =>
      inbox.statusReported({
        providerMessageId: row.provider_message_id ?? '',
        status,
        errorCode: status === 'undelivered' ? '30005' : null,
        errorMessage: null,
        at: new Date(t.clock.now().getTime() + seconds * 1000),
      });
    assert.equal(await report('delivered', 3), 'applied');
    assert.equal(await report('delivered', 3), 'ignored');
    assert.equal(await report('undelivered', 4), 'ignored');
    assert.equal(await report('sent', 1), 'applied', 'a late step is history');
    await advance(t, 5);
    const got = await t.request('GET', `/api/v1/sms/messages/${res.body.id}`, { key: c.key });
    assert.equal(got.body.status, 'delivered');
    assert.deepEqual(
      got.body.status_history.map((h: { status: string }) => h.status),
      ['queued', 'sent', 'delivered'],
    );
    assert.equal((await eventsOf(res.body.id)).length, 1);
    assert.equal(
      await inbox.statusReported({
        providerMessageId: 'SMnope',
        status: 'sent',
        errorCode: null,
        errorMessage: null,
        at: t.clock.now(),
      }),
      'unknown',
    );
  });

  it('Idempotency-Key: one message per key and body; another body or the same key on a call is 409', async () => {
    const c = await newCaller(t);
    const first = await sendSms(t, c, {}, { idempotencyKey: 'confirm-1' });
    const again = await sendSms(t, c, {}, { idempotencyKey: 'confirm-1' });
    assert.equal(again.status, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.body, first.body);
    assertProblem(
      await sendSms(t, c, { body: 'other' }, { idempotencyKey: 'confirm-1' }),
      409,
      'resource.conflict',
    );
    const call = await t.request('POST', '/api/v1/outbound-calls', {
      key: c.key,
      body: { assistant_id: c.assistant.id, to_number: DELIVERED },
      headers: { 'idempotency-key': 'confirm-1' },
    });
    assertProblem(call, 409, 'resource.conflict');
    const list = await t.request('GET', '/api/v1/sms/messages', { key: c.key });
    assert.equal(list.body.data.length, 1);
    // A refused send frees its key: the same key then sends once the cause is gone.
    assertProblem(
      await sendSms(t, c, { to_number: PROVIDER_DOWN }, { idempotencyKey: 'k2' }),
      502,
      'carrier.unavailable',
    );
    assertProblem(
      await sendSms(t, c, { to_number: PROVIDER_DOWN }, { idempotencyKey: 'k2' }),
      502,
      'carrier.unavailable',
    );
  });

  it("the key's daily spend cap holds messages and calls together, per segment, under concurrent sends", async () => {
    // 0.05 / 0.0079 per segment: 6 single-segment messages fit, the seventh does not.
    const c = await newCaller(t, { cap: '0.05' });
    const results = await Promise.all(Array.from({ length: 10 }, () => sendSms(t, c)));
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [...Array(6).fill(201), ...Array(4).fill(402)]);
    const refused = results.find((r) => r.status === 402);
    assert.equal(refused?.body.code, 'outbound.spend_cap_exceeded');
    assert.match(refused?.body.detail ?? '', /this message reserves \$0\.0079 until its final status/);
    const call = await t.request('POST', '/api/v1/outbound-calls', {
      key: c.key,
      body: { assistant_id: c.assistant.id, to_number: DELIVERED },
    });
    assertProblem(call, 402, 'outbound.spend_cap_exceeded');
  });

  it('the dry run reports every check, with the segments and estimate, and sends nothing', async () => {
    const c = await newCaller(t);
    const ok = await sendSms(t, c, { body: 'a'.repeat(200) }, { path: '/api/v1/sms/send/dry-run' });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.allowed, true);
    assert.deepEqual([ok.body.segments, ok.body.spend.call_estimate_usd], [2, '0.0158']);
    const no = await sendSms(
      t,
      c,
      { body: '', to_number: '+33142685300' },
      { path: '/api/v1/sms/send/dry-run' },
    );
    assert.equal(no.body.allowed, false);
    assert.deepEqual(
      no.body.checks.filter((x: { passed: boolean }) => !x.passed).map((x: { code: string }) => x.code),
      ['sms.body_empty', 'outbound.country_not_allowed', 'sms.number_unreachable'],
    );
    assert.equal((await t.request('GET', '/api/v1/sms/messages', { key: c.key })).body.data.length, 0);
  });

  it('test mode: simulated, free, livemode false, outside the ledger; live and test never see each other', async () => {
    const { live, test } = await smsPair(t);
    const sent = await sendSms(t, test);
    assert.equal(sent.status, 201, sent.text);
    assert.deepEqual([sent.body.livemode, sent.body.cost], [false, '0.0000']);
    assert.equal(await ledger(sent.body.id), undefined);
    assertProblem(
      await t.request('GET', `/api/v1/sms/messages/${sent.body.id}`, { key: live.key }),
      404,
      'resource.not_found',
    );
    assert.equal((await t.request('GET', '/api/v1/sms/messages', { key: live.key })).body.data.length, 0);
    assertProblem(
      await t.request('POST', '/api/v1/test/inbound-sms', {
        key: live.key,
        body: { to_number: '+14155550102', body: 'hi' },
      }),
      403,
      'perm.denied',
    );
  });

  it("lists newest first with filters and a cursor bound to them; another customer's message is a 404", async () => {
    const c = await newCaller(t);
    const other = await newCaller(t);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await sendSms(t, c, { body: `n${i}` })).body.id);
      t.clock.advance(1000);
    }
    const theirs = await sendSms(t, other);
    const page1 = await t.request('GET', '/api/v1/sms/messages?limit=2', { key: c.key });
    assert.deepEqual(
      page1.body.data.map((m: { id: string }) => m.id),
      [ids[4], ids[3]],
    );
    const page2 = await t.request('GET', `/api/v1/sms/messages?limit=2&cursor=${page1.body.next_cursor}`, {
      key: c.key,
    });
    assert.deepEqual(
      page2.body.data.map((m: { id: string }) => m.id),
      [ids[2], ids[1]],
    );
    assertProblem(
      await t.request(
        'GET',
        `/api/v1/sms/messages?limit=2&direction=outbound&cursor=${page1.body.next_cursor}`,
        {
          key: c.key,
        },
      ),
      422,
      'input.invalid',
    );
    const byAssistant = await t.request('GET', `/api/v1/sms/messages?assistant_id=${other.assistant.id}`, {
      key: c.key,
    });
    assert.equal(byAssistant.body.data.length, 0, "another customer's assistant filters to nothing");
    assertProblem(
      await t.request('GET', `/api/v1/sms/messages/${theirs.body.id}`, { key: c.key }),
      404,
      'resource.not_found',
    );
    assertProblem(
      await t.request('GET', '/api/v1/sms/messages/sms_nothex', { key: c.key }),
      404,
      'resource.not_found',
    );
    assertProblem(
      await t.request('GET', '/api/v1/sms/messages?status=lost', { key: c.key }),
      422,
      'input.invalid',
    );
  });

  it('send_sms is needed to send and to read; a key without it is 403', async () => {
    const c = await newCaller(t, { scopes: SCOPES.filter((s) => s !== 'send_sms') });
    assertProblem(await sendSms(t, c), 403, 'perm.denied');
    assertProblem(await t.request('GET', '/api/v1/sms/messages', { key: c.key }), 403, 'perm.denied');
  });
});
