import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { insertCalls, markHasTranscript } from '../calls/calls.repository.ts';
import { insertInsights } from '../calls/lifecycle.repository.ts';
import { utcDay } from '../clock.ts';
import { generateCalls } from '../demo/call-generator.ts';
import { insertReservation } from '../outbound/spend.repository.ts';
import { checkE164 } from '../phone.ts';
import { rng } from '../provider/random.ts';
import { browserSkip, launchBrowser, PHONE, WIDE } from '../testing/browser.ts';
import { TEST_PASSWORD } from '../testing/dashboard.fixtures.ts';
import { type Receiver, startReceiver } from '../testing/receiver.ts';
import { newCustomer, startTestApp, type TestApp, type TestCustomer } from '../testing/test-app.ts';
import { emitEvent, testWorker } from '../testing/webhook.fixtures.ts';
import { insertTranscript } from '../transcripts/transcripts.repository.ts';
import type { DeliveryWorker } from '../webhooks/delivery-worker.ts';
import { AUTO_DISABLE_AFTER, FAILURE_FOLD_MS } from '../webhooks/failure-streak.ts';

/**
 * The dashboard end to end in a real headless Chromium (Debian's package, driven by playwright-core).
 * One browser for the file; the steps run in order on one page, like a customer's session.
 */
const SHOTS = new URL('../../test-artifacts/dashboard/', import.meta.url);
const SERVER_SECRET = 'browser-test-secret-0123456789abcdefgh';

describe('dashboard in a real browser', { skip: browserSkip }, () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  let closeWorker: () => Promise<void>;
  let evil: http.Server;
  let evilUrl = '';
  let a: TestCustomer;
  let b: TestCustomer;
  const email = `owner-${Date.now()}@example.com`;
  /** Authenticated API requests made with each key (what the usage page must count). */
  const used = new Map<string, number>();
  let createdKeyId = '';
  let outboundCallId = '';
  let transcriptCallId = '';

  const shot = (name: string, fullPage = true) =>
    page.screenshot({ path: new URL(`${name}.png`, SHOTS).pathname, fullPage });
  const go = (path: string) => page.goto(t.url + path);
  /** An API request with a key; counts it for the usage page when the key authenticated it. */
  async function api(key: string, path: string, method = 'GET', body?: unknown) {
    const res = await t.request(method, `/api/v1${path}`, { key, ...(body === undefined ? {} : { body }) });
    const keyId = keyIds.get(key);
    if (keyId && res.status !== 401) used.set(keyId, (used.get(keyId) ?? 0) + 1);
    return res;
  }
  const keyIds = new Map<string, string>();
  const keySecrets = new Map<string, string>();

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    t = await startTestApp({ serverSecret: SERVER_SECRET });
    ({ worker, close: closeWorker } = testWorker(t, SERVER_SECRET));
    receiver = await startReceiver();
    a = await newCustomer(t, { name: 'Acme Dental' });
    b = await newCustomer(t, { name: 'Other Corp' });
    await t.services.dashboard.users.createUser({ customerId: a.customerId, email, password: TEST_PASSWORD });
    await seedCalls();
    // A page on another site that tries to make the signed-in browser revoke a key.
    evil = http.createServer((req, res) => {
      const target = decodeURIComponent((req.url ?? '/').slice(1));
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<form method="post" action="${target}"><input name="_csrf" value="guess"></form>
<script>document.forms[0].submit()</script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    evilUrl = `http://localhost:${(evil.address() as AddressInfo).port}/`;
    browser = await launchBrowser();
    context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: WIDE });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
  });

  after(async () => {
    await browser?.close();
    await closeWorker?.();
    await receiver?.close();
    evil?.close();
    await t?.close();
  });

  async function seedCalls() {
    const assistant = await t.services.assistants.createAssistant({
      customerId: a.customerId,
      name: 'Front desk',
      description: 'Books appointments',
      voiceId: 'aria',
      phoneNumbers: ['+14155550100'],
    });
    await t.services.assistants.createAssistant({
      customerId: a.customerId,
      name: 'After hours',
      voiceId: 'aria',
      phoneNumbers: ['+16175550100'],
    });
    const rows = generateCalls({
      customerId: a.customerId,
      assistants: [assistant],
      count: 40,
      end: t.clock.now(),
      days: 5,
      random: rng(7),
    });
    const outbound = rows.find((r) => r.direction === 'outbound' && r.status === 'completed');
    const inbound = rows.find((r) => r.direction === 'inbound' && r.status === 'completed');
    assert.ok(outbound && inbound);
    outbound.to_number = '+442079460123';
    assert.equal(checkE164(outbound.to_number).ok, true);
    outboundCallId = outbound.id;
    transcriptCallId = inbound.id;
    await insertCalls(t.db, rows);
    const start = inbound.answered_at ?? inbound.started_at;
    await t.db.transaction().execute(async (tx) => {
      await insertTranscript(tx, {
        callId: inbound.id,
        customerId: a.customerId,
        conversationId: inbound.conversation_id ?? 'conv_x',
        now: t.clock.now(),
        segments: [
          {
            speaker: 'assistant',
            text: 'Good morning, Acme Dental. How can I help?',
            timestamp: start.toISOString(),
          },
          {
            speaker: 'caller',
            text: 'I would like to book a cleaning <b>next week</b>.',
            timestamp: start.toISOString(),
          },
        ],
      });
      await markHasTranscript(tx, inbound.id, t.clock.now());
      await insertInsights(
        tx,
        { id: inbound.id, customer_id: a.customerId },
        [
          { name: 'sentiment', result: 'positive' },
          { name: 'appointment_booked', result: true },
        ],
        t.clock.now(),
      );
      // Spend against the cap of customer A's first key, today.
      await insertReservation(tx, {
        call_id: outbound.id,
        api_key_id: a.keyId,
        customer_id: a.customerId,
        day: utcDay(t.clock.now()),
        amount_usd: '12.3400',
        now: t.clock.now(),
      });
    });
  }

  it('sends a signed-out visitor to sign-in, and signs in with the keyboard', async () => {
    await go('/dashboard/keys');
    assert.match(page.url(), /\/dashboard\/login\?next=/);
    await shot('sign-in');
    // The first tab stop is the skip link; the email field has focus already.
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(TEST_PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/dashboard\/keys$/);
    assert.equal(await page.locator('h1').textContent(), 'API keys');
    assert.match((await page.locator('.who').textContent()) ?? '', /Acme Dental/);
    const cookies = await context.cookies(t.url);
    const session = cookies.find((c) => c.name === '__Host-vca_session');
    assert.ok(session, 'session cookie set');
    assert.equal(session.httpOnly, true);
    assert.equal(session.secure, true);
    assert.equal(session.sameSite, 'Strict');
  });

  it('creates a key with chosen scopes, shows it once with a copy button, and the key works at once', async () => {
    await page.getByRole('link', { name: 'Create key' }).click();
    await page.getByLabel('Name').fill('Zapier');
    await page.getByLabel('Choose scopes').check();
    await page.locator('#scope-read_assistants').check();
    await page.locator('#scope-read_calls').check();
    await page.locator('#scope-manage_webhooks').uncheck();
    assert.equal(
      await page.locator('#scope-send_sms').isDisabled(),
      false,
      'send_sms is a scope like the others',
    );
    await page.getByLabel(/Daily outbound spend cap/).fill('25.50');
    await page.getByLabel('Countries for outbound calls').fill('US, CA');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.waitForURL(/\/dashboard\/keys\/[0-9a-f-]{36}$/);
    createdKeyId = page.url().split('/').pop() ?? '';
    const secret = ((await page.locator('#secret-value').textContent()) ?? '').trim();
    assert.match(secret, /^svc_live_[0-9A-Za-z]{36}$/);
    keyIds.set(secret, createdKeyId);
    keySecrets.set(createdKeyId, secret);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page
      .locator('.copy-status')
      .filter({ hasText: /Copied|Selected/ })
      .waitFor();
    await shot('key-created');

    const whoami = await api(secret, '/auth/whoami');
    assert.equal(whoami.status, 200);
    assert.equal(whoami.body.customer_id, a.customerId);
    assert.equal((await api(secret, '/calls')).status, 200);
    const denied = await api(secret, '/webhook-subscriptions');
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, 'perm.denied');

    // Shown once: a reload no longer shows it, and the page is never cached.
    const again = await page.reload();
    assert.equal(again?.headers()['cache-control'], 'no-store');
    assert.equal(await page.locator('#secret-value').count(), 0);
    assert.equal((await page.content()).includes(secret), false);
  });

  it('changes scopes and the very next API call follows them', async () => {
    const secret = keySecrets.get(createdKeyId) ?? '';
    await page.locator('#scope-read_calls').uncheck();
    await page.locator('#scope-manage_webhooks').check();
    await page.getByRole('button', { name: 'Save scopes' }).click();
    await page.locator('.flash-notice').filter({ hasText: 'Scopes saved' }).waitFor();
    const calls = await api(secret, '/calls');
    assert.equal(calls.status, 403);
    assert.equal(calls.body.code, 'perm.denied');
    assert.equal((await api(secret, '/webhook-subscriptions')).status, 200);
  });

  it('rotates: both values work during the grace period shown, then only the new one', async () => {
    const old = keySecrets.get(createdKeyId) ?? '';
    await page.getByRole('button', { name: 'Rotate key' }).click();
    await page.locator('#secret-value').waitFor();
    const fresh = ((await page.locator('#secret-value').textContent()) ?? '').trim();
    assert.notEqual(fresh, old);
    keyIds.set(fresh, createdKeyId);
    assert.match((await page.locator('.secret').textContent()) ?? '', /previous value keeps working until/);
    assert.match((await page.locator('.facts').textContent()) ?? '', /Previous value\s*valid until/);
    assert.equal((await api(old, '/auth/whoami')).status, 200);
    assert.equal((await api(fresh, '/auth/whoami')).status, 200);
    t.clock.advance(3600 * 1000 + 1000); // the test app's rotation grace is one hour
    const late = await api(old, '/auth/whoami');
    assert.equal(late.status, 401);
    assert.equal(late.body.code, 'auth.invalid');
    assert.equal((await api(fresh, '/auth/whoami')).status, 200);
    keySecrets.set(createdKeyId, fresh);
  });

  it('revokes after a confirmation; the key then fails with auth.revoked', async () => {
    const secret = keySecrets.get(createdKeyId) ?? '';
    await page.reload();
    await page.getByRole('link', { name: 'Revoke key…' }).click();
    assert.match((await page.locator('h1').textContent()) ?? '', /Revoke “Zapier”\?/);
    assert.equal((await api(secret, '/auth/whoami')).status, 200, 'nothing happens before confirming');
    await page.getByRole('button', { name: 'Yes, revoke this key' }).click();
    await page.locator('.badge', { hasText: 'Revoked' }).first().waitFor();
    const res = await api(secret, '/auth/whoami');
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'auth.revoked');
    await go('/dashboard/keys');
    await shot('keys');
  });

  it('shows a subscription auto-disabled by a failing receiver, re-enables it, and it delivers again', async () => {
    receiver.reply = () => ({ status: 500 });
    const sub = await api(a.key, '/webhook-subscriptions', 'POST', {
      url: `${receiver.url}/crm`,
      events: ['call.completed'],
      description: 'CRM sync',
    });
    assert.equal(sub.status, 201, sub.text);
    // One event every FAILURE_FOLD_MS, so each failure counts (concurrent ones within that window fold into one);
    // retries of earlier events fall due along the way and are sent too.
    for (let i = 0; i < AUTO_DISABLE_AFTER; i++) {
      await emitEvent(t, a.customerId, transcriptCallId);
      await worker.drain();
      t.clock.advance(FAILURE_FOLD_MS);
    }
    const sentWhileFailing = receiver.received.length;
    assert.ok(sentWhileFailing > AUTO_DISABLE_AFTER, `${sentWhileFailing} attempts`);

    await go('/dashboard/webhooks');
    const row = page.locator('tbody tr', { hasText: '/crm' });
    assert.match((await row.textContent()) ?? '', /Auto-disabled/);
    assert.equal(((await row.locator('td.num').textContent()) ?? '').trim(), '10');
    await shot('webhooks');

    await row.getByRole('link').click();
    const logRows = page.locator('section[aria-labelledby="log-title"] tbody tr');
    assert.equal(await logRows.filter({ hasText: '500' }).count(), sentWhileFailing);
    // Failed only, and one attempt opened: its headers (signatures redacted), body and the receiver's answer.
    await page.getByRole('link', { name: 'Failed only' }).click();
    await page.waitForURL(/outcome=failed/);
    assert.equal(await logRows.count(), sentWhileFailing);
    await shot('delivery-log-failed');
    await logRows.first().getByRole('link').click();
    await page.waitForURL(/\/attempts\/\d+$/);
    assert.match(
      (await page.locator('table.headers').textContent()) ?? '',
      /x-svc-signature-256\s*\[redacted\]/,
    );
    assert.match((await page.locator('#res-title').locator('..').textContent()) ?? '', /HTTP 500/);
    await shot('delivery-attempt');
    await page.goBack();
    await page.goBack();
    assert.match(
      (await page.locator('.flash-error').first().textContent()) ?? '',
      /10 consecutive delivery failures/,
    );
    await shot('delivery-log');

    // The receiver is fixed; a test event proves it before re-enabling (and does not re-enable by itself).
    receiver.reply = () => ({ status: 200 });
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.locator('.flash-notice').filter({ hasText: 'delivered: HTTP 200' }).waitFor();
    const test = receiver.received.at(-1);
    assert.equal(JSON.parse(test?.body ?? '{}').data.test, true);
    assert.equal(test?.headers['x-svc-event'], 'call.completed');
    assert.match(String(test?.headers['x-svc-signature-256']), /^[0-9a-f]{64}$/);

    await page.getByRole('button', { name: 'Re-enable' }).click();
    await page.locator('.flash-notice').filter({ hasText: 're-enabled' }).waitFor();
    assert.match((await page.locator('.page-head .badge').textContent()) ?? '', /Active/);
    t.clock.advance(60_000); // past the first retry delay of the pending deliveries
    const before = receiver.received.length;
    // Counted at this test's receiver: the drain also takes any other test's due delivery in the shared database.
    await worker.drain();
    assert.equal(receiver.received.length - before, 10, 'the 10 pending deliveries, resumed');
    await emitEvent(t, a.customerId, transcriptCallId);
    await worker.drain();
    assert.equal(receiver.received.length - before, 11);
    await page.reload();
    assert.match((await page.locator('.facts').textContent()) ?? '', /0 of 10/);
    assert.ok((await logRows.filter({ hasText: '200' }).count()) >= 11);
    assert.equal(await logRows.locator('.badge', { hasText: 'Test' }).count(), 1, 'the test event is marked');
    // Charts: SVG with a title and a description each, readable without script.
    assert.equal(await page.locator('figure.chart svg[role="img"] > title').count(), 4);
    await page.locator('#charts-title').scrollIntoViewIfNeeded();
    await shot('delivery-charts');
  });

  it('a call whose transcript is pending says so, refreshes by itself (with JS) and then shows it', async () => {
    const assistant = await t.db
      .selectFrom('assistants')
      .selectAll()
      .where('customer_id', '=', a.customerId)
      .executeTakeFirstOrThrow();
    const [row] = generateCalls({
      customerId: a.customerId,
      assistants: [assistant],
      count: 1,
      end: t.clock.now(),
      days: 1,
      random: rng(11),
    });
    assert.ok(row);
    // Still going, with no conversation yet: its transcript is pending (retry after 15 s).
    Object.assign(row, {
      status: 'in_progress',
      conversation_id: null,
      ended_at: null,
      duration_seconds: null,
    });
    await insertCalls(t.db, [row]);
    const url = `${t.url}/dashboard/calls/${row.id}`;

    const noScript = await browser.newContext({ ignoreHTTPSErrors: true, javaScriptEnabled: false });
    const plain = await noScript.newPage();
    await plain.context().addCookies(await context.cookies());
    await plain.goto(url);
    assert.match(
      (await plain.locator('[data-reload-after]').textContent()) ?? '',
      /not ready yet; reload in about 15 seconds/,
    );
    await noScript.close();

    await page.goto(url);
    assert.match(
      (await page.locator('[data-reload-after]').textContent()) ?? '',
      /refreshes by itself in about 15 seconds/,
    );
    await t.db.transaction().execute(async (tx) => {
      await insertTranscript(tx, {
        callId: row.id,
        customerId: a.customerId,
        conversationId: 'conv_pending_then_ready',
        now: t.clock.now(),
        segments: [{ speaker: 'assistant', text: 'Ready now.', timestamp: row.started_at.toISOString() }],
      });
      await markHasTranscript(tx, row.id, t.clock.now());
    });
    // No navigation by the test: the page reloads itself and shows the transcript.
    await page.locator('.transcript', { hasText: 'Ready now.' }).waitFor({ timeout: 40_000 });
  });

  it('lists calls with the API filters and pagination, and shows a call with its transcript and insights', async () => {
    await go('/dashboard/calls');
    await shot('calls');
    // Status filter: a human label, several statuses at once.
    await page.getByLabel('Status').selectOption({ label: 'No answer' });
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/status=no_answer/);
    const statuses = await page.locator('tbody tr td:nth-child(3)').allTextContents();
    assert.ok(statuses.length > 0);
    assert.ok(
      statuses.every((x) => x.trim() === 'No answer'),
      statuses.join(),
    );
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Direction').selectOption('inbound');
    await page.getByLabel('Per page').selectOption('10');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/direction=inbound/);
    const directions = await page.locator('tbody tr td:nth-child(2)').allTextContents();
    assert.equal(directions.length, 10);
    assert.ok(directions.every((d) => d.trim() === 'Inbound'));
    const first = await page.locator('tbody tr').first().textContent();
    await page.getByRole('link', { name: 'Older →' }).click();
    await page.waitForURL(/page=1/);
    assert.notEqual(await page.locator('tbody tr').first().textContent(), first);
    assert.match(page.url(), /direction=inbound/);

    const bad = await page.goto(`${t.url}/dashboard/calls?from=yesterday`);
    assert.equal(bad?.status(), 422);
    assert.match((await page.locator('.flash-error').textContent()) ?? '', /from/);

    await go(`/dashboard/calls/${transcriptCallId}`);
    const transcript = page.locator('.transcript');
    assert.match(
      (await transcript.textContent()) ?? '',
      /book a cleaning <b>next week<\/b>/,
      'markup shown as text',
    );
    assert.equal(await transcript.locator('b').count(), 0);
    assert.match(
      (await page.locator('section', { hasText: 'Insights' }).textContent()) ?? '',
      /sentiment\s*positive/,
    );
    await shot('call-detail');
    await go('/dashboard/assistants');
    assert.equal(await page.locator('tbody tr').count(), 2);
  });

  it('shows requests per key per day, spend against the cap, and outbound calls by country', async () => {
    // The clock has moved on since the data was made (rotation grace, fold windows) and may have passed midnight
    // UTC: the spend seeded for "today" is moved to the clock's day, which is the page's today.
    await t.db
      .updateTable('spend_reservations')
      .set({ day: utcDay(t.clock.now()) })
      .where('api_key_id', '=', a.keyId)
      .execute();
    await go('/dashboard/usage');
    const reqRow = page
      .locator('section', { hasText: 'API requests per key' })
      .locator('tbody tr', { hasText: 'Zapier' });
    assert.equal(
      ((await reqRow.locator('strong').textContent()) ?? '').trim(),
      String(used.get(createdKeyId)),
    );
    const firstKey = (await t.services.keys.getKey(a.customerId, a.keyId)).name;
    const spendRow = page
      .locator('section', { hasText: 'Outbound spend' })
      .locator('tbody tr', { hasText: firstKey });
    assert.match((await spendRow.textContent()) ?? '', /\$12\.34\s*\$100\.00\s*12%/);
    const countries = page.locator('section', { hasText: 'by country' });
    assert.match((await countries.textContent()) ?? '', /United Kingdom/);
    assert.match((await countries.textContent()) ?? '', /United States/);
    assert.ok((await page.locator('figure.chart svg > title').count()) >= 1, 'a requests chart per key');
    assert.match((await page.locator('figure.chart').first().textContent()) ?? '', /Errors \(4xx\/5xx\)/);
    await shot('usage');
    assert.ok(outboundCallId);
  });

  it('refuses cross-site forms, forms without the CSRF token, and another customer’s data', async () => {
    // A cross-site page auto-submits a form: the SameSite=Strict cookie is not sent, nothing changes.
    await page.goto(`${evilUrl}${encodeURIComponent(`${t.url}/dashboard/keys/${a.keyId}/revoke`)}`);
    await page.waitForURL(/\/dashboard\/login/);
    assert.equal((await t.services.keys.getKey(a.customerId, a.keyId)).status, 'active');

    // Same browser session, but no token (or a wrong one): refused.
    const noToken = await context.request.post(`${t.url}/dashboard/keys/${a.keyId}/revoke`, {
      form: {},
      maxRedirects: 0,
    });
    assert.equal(noToken.status(), 403);
    const wrongToken = await context.request.post(`${t.url}/dashboard/keys/${a.keyId}/revoke`, {
      form: { _csrf: 'x'.repeat(43) },
      maxRedirects: 0,
    });
    assert.equal(wrongToken.status(), 403);
    assert.equal((await t.services.keys.getKey(a.customerId, a.keyId)).status, 'active');

    // Another customer's key, subscription and call: 404, and a valid token does not help.
    await go('/dashboard/keys');
    const token = (await page.locator('input[name="_csrf"]').first().getAttribute('value')) ?? '';
    const otherKey = await page.goto(`${t.url}/dashboard/keys/${b.keyId}`);
    assert.equal(otherKey?.status(), 404);
    const revokeOther = await context.request.post(`${t.url}/dashboard/keys/${b.keyId}/revoke`, {
      form: { _csrf: token },
      maxRedirects: 0,
    });
    assert.equal(revokeOther.status(), 404);
    assert.equal((await t.request('GET', '/api/v1/auth/whoami', { key: b.key })).status, 200);
    const otherSub = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: b.key,
      body: { url: `${receiver.url}/other`, events: ['call.completed'] },
    });
    assert.equal((await page.goto(`${t.url}/dashboard/webhooks/${otherSub.body.id}`))?.status(), 404);
    await go('/dashboard/webhooks');
    assert.equal((await page.content()).includes('/other'), false);
    await go('/dashboard/keys');
    assert.equal((await page.content()).includes(b.keyId), false);
  });

  it('is readable on a phone: no sideways page scroll, navigation wraps', async () => {
    await page.setViewportSize(PHONE);
    for (const [path, name] of [
      ['/dashboard/keys', 'keys-phone'],
      ['/dashboard/webhooks', 'webhooks-phone'],
      ['/dashboard/calls', 'calls-phone'],
      ['/dashboard/usage', 'usage-phone'],
    ] as const) {
      await go(path);
      assert.equal(
        await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'),
        true,
        path,
      );
      await shot(name, false);
    }
    await page.setViewportSize(WIDE);
  });

  it('signs out: the session is gone on the server', async () => {
    await go('/dashboard/keys');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/dashboard\/login$/);
    await go('/dashboard/keys');
    assert.match(page.url(), /\/dashboard\/login/);
  });
  it('/docs has no page-wide horizontal scroll at 1280 and 390 px, a collapsible contents on a phone, a favicon', async () => {
    const missing: string[] = [];
    page.on('response', (r) => {
      if (r.status() === 404) missing.push(r.url());
    });
    for (const [name, size] of [
      ['wide', WIDE],
      ['phone', PHONE],
    ] as const) {
      await page.setViewportSize(size);
      await go('/docs');
      const width = await page.evaluate(
        () =>
          (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
            .documentElement.scrollWidth,
      );
      assert.ok(width <= size.width, `${name}: page is ${width}px wide`);
      await shot(`docs-${name}`, false);
    }
    const toc = page.locator('details.toc');
    assert.equal(await toc.isVisible(), true);
    const tocHeight = (await toc.boundingBox())?.height ?? 0;
    assert.ok(tocHeight < 80, `collapsed contents is ${tocHeight}px tall`);
    await toc.locator('summary').click();
    assert.ok((await toc.locator('a').count()) > 10);
    await shot('docs-phone-contents', false);
    await page.setViewportSize(WIDE);
    await go('/docs');
    assert.equal(await page.locator('details.toc').isVisible(), false);
    const icon = await context.request.get(`${t.url}/docs/favicon.svg`);
    assert.equal(icon.status(), 200);
    assert.match(icon.headers()['content-type'] ?? '', /image\/svg\+xml/);
    assert.deepEqual(missing, []);
  });
});
