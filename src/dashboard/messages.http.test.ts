import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type DashboardClient, signedIn } from '../testing/dashboard.fixtures.ts';
import { advance, type Caller, newAssistant, newCaller } from '../testing/outbound.fixtures.ts';
import { DELIVERED, sendSms, smsPair, UNDELIVERED } from '../testing/sms.fixtures.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';

/** The rows of a messages page: each row's message id (from its link) and its text. */
const rowsOf = (text: string): { id: string; row: string }[] =>
  [
    ...text.matchAll(
      /<tr>\s*<th scope="row"><a href="\/dashboard\/messages\/(sms_[0-9a-f]{24})">[\s\S]*?<\/tr>/g,
    ),
  ].map((m) => ({ id: m[1] ?? '', row: m[0] }));
const idsOf = (text: string): string[] => rowsOf(text).map((r) => r.id);
const rowOf = (text: string, id: string): string => rowsOf(text).find((r) => r.id === id)?.row ?? '';

/** The messages pages (sent and received), through the real HTTPS app, as a browser without JavaScript uses them. */
describe('dashboard messages', () => {
  let t: TestApp;
  let c: Caller;
  let client: DashboardClient;

  before(async () => {
    t = await startTestApp();
    c = await newCaller(t);
    ({ client } = await signedIn(t, c.customerId));
  });
  after(async () => {
    await client.close();
    await t.close();
  });

  async function send(from: Pick<Caller, 'key' | 'assistant'>, body: Record<string, unknown> = {}) {
    const res = await sendSms(t, from, { body: 'Hi', ...body });
    assert.equal(res.status, 201, res.text);
    return res.body.id as string;
  }

  it('lists messages newest first with their status, which follows the carrier; the navigation has Messages next to Calls', async () => {
    const first = await send(c, { to_number: DELIVERED });
    t.clock.advance(1000);
    const second = await send(c, {
      to_number: UNDELIVERED,
      body: 'A longer text that goes on and on past the sixty characters a row shows of it',
    });
    let page = await client.get('/dashboard/messages');
    assert.equal(page.status, 200);
    assert.match(
      page.text,
      /<a href="\/dashboard\/calls">Calls<\/a><\/li>\s*<li><a href="\/dashboard\/messages" aria-current="page">Messages<\/a>/,
    );
    assert.deepEqual(idsOf(page.text).slice(0, 2), [second, first], 'newest first');
    assert.match(rowOf(page.text, first), /badge-muted">Queued</);
    assert.match(rowOf(page.text, first), /\+14155550102 .*→.* \+14155550199/);
    assert.match(rowOf(page.text, first), /\$0\.0079 <span class="small muted">estimate/);

    await advance(t, 5);
    page = await client.get('/dashboard/messages');
    assert.match(rowOf(page.text, first), /badge-ok">Delivered</);
    assert.match(rowOf(page.text, first), /data-label="Segments">1</);
    assert.match(rowOf(page.text, first), /data-label="Text">Hi</);
    assert.match(rowOf(page.text, second), /badge-bad">Undelivered</);
    assert.match(
      rowOf(page.text, second),
      /data-label="Text">A longer text that goes on and on past the sixty characters…</,
      'the first 60 characters',
    );
  });

  it('filters by assistant, API key, direction and status, with selects of the assistants and keys; rows of those pages link here', async () => {
    const other = await newAssistant(t, c.customerId, { phoneNumbers: ['+14155550103'] });
    const { key, secret } = await t.services.keys.createKey({
      customerId: c.customerId,
      name: 'Second sender',
      scopes: ['send_sms'],
    });
    const mine = await send(c);
    const theirs = await send({ key: secret, assistant: other });
    await advance(t, 5);

    const all = idsOf((await client.get('/dashboard/messages?limit=100')).text);
    assert.ok(all.includes(mine) && all.includes(theirs));
    const byAssistant = await client.get(`/dashboard/messages?assistant_id=${other.id}`);
    assert.deepEqual(idsOf(byAssistant.text), [theirs]);
    assert.match(byAssistant.text, new RegExp(`<option value="${other.id}" selected>Reminders</option>`));
    assert.deepEqual(
      idsOf((await client.get(`/dashboard/messages?api_key_id=${key.id}`)).text),
      [theirs],
      'by API key',
    );
    const byFirstKey = idsOf((await client.get(`/dashboard/messages?api_key_id=${c.keyId}&limit=100`)).text);
    assert.ok(byFirstKey.includes(mine) && !byFirstKey.includes(theirs));
    assert.deepEqual(
      idsOf(
        (await client.get(`/dashboard/messages?api_key_id=${key.id}&status=delivered&direction=outbound`))
          .text,
      ),
      [theirs],
    );
    const none = await client.get(`/dashboard/messages?api_key_id=${key.id}&status=failed`);
    assert.deepEqual(idsOf(none.text), []);
    assert.match(none.text, /No messages match these filters/);
    assert.deepEqual(idsOf((await client.get('/dashboard/messages?direction=inbound')).text), []);

    const bad = await client.get('/dashboard/messages?assistant_id=nope&status=lost');
    assert.equal(bad.status, 422);
    assert.match(bad.text, /<a href="#assistant_id">Assistant: Must be a UUID\.<\/a>/);
    assert.match(bad.text, /<a href="#status">Status: Must be one of/);

    const assistants = await client.get('/dashboard/assistants');
    assert.ok(assistants.text.includes(`href="/dashboard/messages?assistant_id=${other.id}"`));
    const keys = await client.get('/dashboard/keys');
    assert.ok(keys.text.includes(`href="/dashboard/messages?api_key_id=${key.id}"`));
    assert.ok(
      (await client.get(`/dashboard/keys/${key.id}`)).text.includes(
        `href="/dashboard/messages?api_key_id=${key.id}"`,
      ),
    );
  });

  it('pages older messages by cursor; a cursor of other filters is refused on the page, not with a 500', async () => {
    const sender = await newCaller(t);
    const { client: own } = await signedIn(t, sender.customerId);
    try {
      const sent: string[] = [];
      for (let i = 0; i < 5; i++) {
        sent.push(await send(sender, { body: `Message ${i}` }));
        t.clock.advance(1000);
      }
      const seen: string[] = [];
      let path: string | null = '/dashboard/messages?limit=2';
      let pages = 0;
      while (path) {
        const page = await own.get(path);
        assert.equal(page.status, 200, page.text.slice(0, 300));
        seen.push(...idsOf(page.text));
        pages += 1;
        const next = /<a class="button" rel="next" href="([^"]+)">Older/.exec(page.text)?.[1];
        path = next ? next.replaceAll('&amp;', '&') : null;
        if (pages > 1) assert.match(page.text, /href="\/dashboard\/messages\?limit=2">← Newest/);
      }
      assert.equal(pages, 3);
      assert.deepEqual(seen, [...sent].reverse(), 'every message once, newest first');

      const first = await own.get('/dashboard/messages?limit=2');
      const cursor = new URLSearchParams(
        (/rel="next" href="\/dashboard\/messages\?([^"]+)"/.exec(first.text)?.[1] ?? '').replaceAll(
          '&amp;',
          '&',
        ),
      ).get('cursor');
      assert.ok(cursor);
      const crossed = await own.get(`/dashboard/messages?limit=2&direction=inbound&cursor=${cursor}`);
      assert.equal(crossed.status, 422);
      assert.match(crossed.text, /no longer matches the filters/);
      // Another customer's cursor continues nothing of this one.
      assert.equal((await client.get(`/dashboard/messages?limit=2&cursor=${cursor}`)).status, 422);
    } finally {
      await own.close();
    }
  });

  it('shows a message in full: every field, the body with its line breaks, the status history as a timeline', async () => {
    const id = await send(c, {
      body: 'Line one\nLine two',
      external_id: 'booking-1234',
      metadata: { booking_id: 'b_1234' },
    });
    const failed = await send(c, { to_number: UNDELIVERED });
    await advance(t, 5);
    const page = await client.get(`/dashboard/messages/${id}`);
    assert.equal(page.status, 200);
    assert.match(
      page.text,
      /<nav class="crumbs" aria-label="Breadcrumb"><ol><li><a href="\/dashboard\/messages">Messages<\/a><\/li><li aria-current="page">Message<\/li>/,
    );
    assert.ok(page.text.includes(`<code>${id}</code>`));
    assert.match(page.text, /<p class="message-body">Line one\nLine two<\/p>/);
    assert.match(page.text, /<code>booking-1234<\/code>/);
    assert.match(page.text, /&quot;booking_id&quot;: &quot;b_1234&quot;/);
    assert.match(page.text, /\+14155550102/);
    assert.match(page.text, /\+14155550199/);
    assert.match(page.text, /GSM-7/);
    assert.match(page.text, /\$0\.0079</, 'final: no longer an estimate');
    assert.ok(page.text.includes(`href="/dashboard/messages?assistant_id=${c.assistant.id}"`));
    const timeline = /<ol class="timeline">([\s\S]*?)<\/ol>/.exec(page.text)?.[1] ?? '';
    assert.deepEqual(
      [...timeline.matchAll(/class="badge badge-\w+">(\w+)</g)].map((m) => m[1]),
      ['Queued', 'Sent', 'Delivered'],
    );
    assert.match(timeline, /<time datetime="/);

    const undelivered = await client.get(`/dashboard/messages/${failed}`);
    assert.match(undelivered.text, /<dt>Error<\/dt><dd><code>30003<\/code> [^<]+/);
    const lastStep =
      /<ol class="timeline">[\s\S]*<li>([\s\S]*?)<\/li><\/ol>/.exec(undelivered.text)?.[1] ?? '';
    assert.match(lastStep, /Undelivered[\s\S]*error <code>30003<\/code>/);
  });

  it("another customer's message, and an id that is no message, are the dashboard's 404 page", async () => {
    const stranger = await newCaller(t);
    const theirs = await send(stranger);
    for (const path of [theirs, 'sms_000000000000000000000000', 'not-an-id']) {
      const res = await client.get(`/dashboard/messages/${path}`);
      assert.equal(res.status, 404, path);
      assert.match(res.text, /<h1>Not found<\/h1>/);
    }
    assert.ok(!idsOf((await client.get('/dashboard/messages?limit=100')).text).includes(theirs));
  });

  it('escapes what a message says, in the list and in full', async () => {
    const id = await send(c, { body: '<script>alert(1)</script> & "quotes"', external_id: '<b>x</b>' });
    const list = await client.get('/dashboard/messages');
    const detail = await client.get(`/dashboard/messages/${id}`);
    for (const text of [list.text, detail.text]) {
      assert.ok(!text.includes('<script>alert(1)'));
      assert.ok(text.includes('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;'));
    }
    assert.ok(detail.text.includes('<code>&lt;b&gt;x&lt;/b&gt;</code>'));
  });

  it('the test-data view shows test messages only (received ones too), and the live view live ones only', async () => {
    const { live, test } = await smsPair(t);
    const liveId = await send(live);
    const testId = await send(test);
    const received = await t.request('POST', '/api/v1/test/inbound-sms', {
      key: test.key,
      body: { to_number: '+14155550102', from_number: '+14155550177', body: 'Yes, 3 pm works' },
    });
    assert.equal(received.status, 201, received.text);
    const receivedId = received.body.id as string;
    await advance(t, 5);
    const { client: own } = await signedIn(t, live.customerId);
    try {
      const livePage = await own.get('/dashboard/messages');
      assert.deepEqual(idsOf(livePage.text), [liveId]);
      assert.equal((await own.get(`/dashboard/messages/${testId}`)).status, 404);
      const switched = await own.post('/dashboard/view', {
        _csrf: own.csrf(),
        mode: 'test',
        back: '/dashboard/messages',
      });
      assert.equal(switched.headers.location, '/dashboard/messages');
      const testPage = await own.get('/dashboard/messages');
      assert.match(testPage.text, /Viewing test data/);
      assert.deepEqual(new Set(idsOf(testPage.text)), new Set([testId, receivedId]), 'test messages only');
      assert.match(rowOf(testPage.text, receivedId), /badge-info">Received</);
      assert.match(rowOf(testPage.text, receivedId), /\+14155550177 .*→.* \+14155550102/);
      assert.deepEqual(idsOf((await own.get('/dashboard/messages?direction=inbound')).text), [receivedId]);
      // The key select offers the test keys of this view, not the live ones.
      assert.ok(
        testPage.text.includes(`value="${test.keyId}"`) && !testPage.text.includes(`value="${live.keyId}"`),
      );
      assert.deepEqual(idsOf((await own.get(`/dashboard/messages?api_key_id=${test.keyId}`)).text), [testId]);
      const detail = await own.get(`/dashboard/messages/${testId}`);
      assert.equal(detail.status, 200);
      assert.match(detail.text, /Test \(simulated, free\)/);
      assert.equal(
        (await own.get(`/dashboard/messages/${liveId}`)).status,
        404,
        'a live message is not in the test view',
      );
    } finally {
      await own.close();
    }
  });

  it('the usage page says its spend per key is calls and text messages, and how much of it is messages', async () => {
    const sender = await newCaller(t);
    await send(sender);
    await advance(t, 5);
    const { client: own } = await signedIn(t, sender.customerId);
    try {
      const usage = await own.get('/dashboard/usage');
      assert.equal(usage.status, 200);
      assert.match(usage.text, /Outbound spend per key: calls and text messages/);
      assert.match(usage.text, /id="spend-calls-total">\$0\.00</);
      assert.match(usage.text, /id="spend-messages-total">\$0\.01</);
      assert.match(usage.text, /id="spend-total">\$0\.01</);
    } finally {
      await own.close();
    }
  });
});
