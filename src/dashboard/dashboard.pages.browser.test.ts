import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { seedDemo } from '../demo/seed-demo.ts';
import {
  type AxeViolation,
  axeAudit,
  browserSkip,
  failingElements,
  launchBrowser,
  PHONE,
  WIDE,
} from '../testing/browser.ts';
import { TEST_PASSWORD } from '../testing/dashboard.fixtures.ts';
import { advance } from '../testing/outbound.fixtures.ts';
import { type Receiver, startReceiver } from '../testing/receiver.ts';
import { UNDELIVERED } from '../testing/sms.fixtures.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';
import { emitEvent, testWorker } from '../testing/webhook.fixtures.ts';
import type { DeliveryWorker } from '../webhooks/delivery-worker.ts';

/**
 * Every dashboard page (and /docs) in a real Chromium at 1280 and 390 px, on the demo data `npm start` seeds:
 * an axe-core audit for WCAG 2.1 AA, and the layout points of issue 41 (charts, the delivery log's pages, the
 * usage tables, breadcrumbs, the demo's transcripts and spend). Screenshots go to test-artifacts/dashboard/pages/.
 */
const SHOTS = new URL('../../test-artifacts/dashboard/pages/', import.meta.url);
const SERVER_SECRET = 'pages-browser-test-secret-0123456789abcd';
const WIDTHS = [
  ['wide', WIDE],
  ['phone', PHONE],
] as const;
const HOUR = 3_600_000;
/** Attempts in the seeded endpoint's log: more than one page holds. */
const OK_ATTEMPTS = 30;
const FAILED_ATTEMPTS = 14;

describe('dashboard pages at 1280 and 390 px', { skip: browserSkip }, () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  let closeWorker: () => Promise<void>;
  let customerId = '';
  let subscriptionId = '';
  let idleKeyId = '';
  let frenchCallId = '';
  let attemptId = '';
  let messageId = '';
  const email = `pages-${Date.now()}@example.com`;

  const go = (path: string) => page.goto(t.url + path);
  const shotPath = (name: string) => new URL(`${name}.png`, SHOTS).pathname;
  const shot = (name: string, fullPage = false) => page.screenshot({ path: shotPath(name), fullPage });

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    t = await startTestApp({ serverSecret: SERVER_SECRET });
    ({ worker, close: closeWorker } = testWorker(t, SERVER_SECRET));
    receiver = await startReceiver();
    const demo = await seedDemo(t.db, t.services, t.clock);
    customerId = demo.customerId;
    await t.services.dashboard.users.createUser({ customerId, email, password: TEST_PASSWORD });
    idleKeyId = (await t.services.keys.createKey({ customerId, name: 'Idle key', scopes: ['read_calls'] }))
      .key.id;
    for (const path of ['/calls', '/assistants', '/calls?limit=5', '/auth/whoami', '/calls?from=x']) {
      await t.request('GET', `/api/v1${path}`, { key: demo.secret });
    }
    const french = await t.db
      .selectFrom('calls as c')
      .innerJoin('assistants as a', 'a.id', 'c.assistant_id')
      .select('c.id')
      .where('c.customer_id', '=', customerId)
      .where('a.language', '=', 'fr-CA')
      .where('c.direction', '=', 'outbound')
      .where('c.status', '=', 'completed')
      .executeTakeFirstOrThrow();
    frenchCallId = french.id;

    // An endpoint with more attempts than a page holds: a good hour, then an hour where every attempt failed.
    const { subscription } = await t.services.subscriptions.subscribe(customerId, {
      url: `${receiver.url}/hooks/crm`,
      events: ['call.completed'],
      description: 'CRM sync',
    });
    subscriptionId = subscription.id;
    t.clock.advance(-2 * HOUR);
    receiver.reply = () => ({ status: 200 });
    for (let i = 0; i < OK_ATTEMPTS; i++) await emitEvent(t, customerId, frenchCallId);
    await worker.drain();
    t.clock.advance(HOUR);
    receiver.reply = () => ({ status: 500 });
    for (let i = 0; i < FAILED_ATTEMPTS; i++) await emitEvent(t, customerId, frenchCallId);
    await worker.drain();
    t.clock.advance(HOUR);
    const attempt = await t.db
      .selectFrom('webhook_attempts')
      .select('id')
      .where('subscription_id', '=', subscriptionId)
      .executeTakeFirstOrThrow();
    attemptId = String(attempt.id);

    // Text messages sent with the demo key: one delivered (a long body over several lines), one undelivered.
    const reminders = (await t.services.assistants.listAssistants(customerId, { limit: 100 })).data.find(
      (a) => a.name === 'Reminders',
    );
    assert.ok(reminders);
    for (const [to, body] of [
      [
        '+14155550199',
        'Hi Sam, this is Demo Dental Group.\nYour cleaning is on Friday at 9:30 am with Dr. Patel.\nReply YES to confirm or call us to change it.',
      ],
      [UNDELIVERED, 'Your appointment is tomorrow at 2 pm.'],
    ]) {
      const sent = await t.request('POST', '/api/v1/sms/send', {
        key: demo.secret,
        body: { assistant_id: reminders.id, to_number: to, body, metadata: { patient_id: 'p_1042' } },
      });
      assert.equal(sent.status, 201, sent.text);
      messageId ||= sent.body.id;
    }
    await advance(t, 5);

    browser = await launchBrowser();
    context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: WIDE });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await go('/dashboard/login');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/dashboard\/keys$/);
  });

  after(async () => {
    // Its failed deliveries wait for a retry in the shared test database: no other test's worker may claim them.
    if (subscriptionId) await t.services.subscriptions.unsubscribe(customerId, subscriptionId);
    await browser?.close();
    await closeWorker?.();
    await receiver?.close();
    await t?.close();
  });

  it('charts: a key with no requests reads 0 and 1 on its y axis; an hour where every delivery failed draws its failures; labels are readable on a phone', async () => {
    for (const [name, size] of WIDTHS) {
      await page.setViewportSize(size);
      await go('/dashboard/usage');
      const idle = page.locator(`#usage-${idleKeyId}`);
      await idle.screenshot({ path: shotPath(`chart-idle-key-${name}`) });
      await go(`/dashboard/webhooks/${subscriptionId}`);
      const health = page.locator('section[aria-labelledby="charts-title"]');
      await health.screenshot({ path: shotPath(`chart-delivery-${name}`) });
    }
    await page.setViewportSize(WIDE);
    await go('/dashboard/usage');
    const idleTicks = await page.locator(`#usage-${idleKeyId} text.chart-y`).allTextContents();
    assert.deepEqual(idleTicks, ['0', '1'], 'whole, distinct ticks');

    await go(`/dashboard/webhooks/${subscriptionId}`);
    // The hour of failures: a bar of failures 100% tall, where an empty hour has no bar at all.
    const failedBars = page.locator('#chart-24h-success rect.chart-bar.tone-bad');
    assert.equal(await failedBars.count(), 1);
    assert.match((await failedBars.locator('title').textContent()) ?? '', /Failed 100%/);
    assert.equal(await page.locator('#chart-24h-success rect.chart-bar').count(), 2);

    await page.setViewportSize(PHONE);
    await go(`/dashboard/webhooks/${subscriptionId}`);
    // The size a label is drawn at: its font size in the SVG's units times the SVG's scale on screen.
    const drawnSizes = (selector: string) =>
      page.locator(`${selector} text.chart-axis`).evaluateAll((els) =>
        els
          .map((e) => {
            type SvgText = {
              getScreenCTM(): { a: number } | null;
              getBoundingClientRect(): { height: number };
            };
            const text = e as unknown as SvgText;
            const style = (
              globalThis as unknown as { getComputedStyle(e: unknown): { fontSize: string } }
            ).getComputedStyle(e);
            const shown = text.getBoundingClientRect().height > 0;
            return shown ? Number.parseFloat(style.fontSize) * (text.getScreenCTM()?.a ?? 0) : null;
          })
          .filter((size) => size !== null),
      );
    for (const selector of ['#chart-24h-success', '#chart-7d-latency']) {
      const sizes = await drawnSizes(selector);
      assert.ok(sizes.length > 0);
      const smallest = Math.min(...sizes);
      process.stdout.write(
        `# ${selector} axis labels at 390 px: drawn at ${smallest.toFixed(1)} px or more\n`,
      );
      assert.ok(smallest >= 11, `${selector}: axis labels drawn at ${smallest.toFixed(1)} px on a phone`);
    }
    await page.setViewportSize(WIDE);
  });

  it('the delivery log is paged like the API: a bounded page, older pages by cursor, page numbers too', async () => {
    for (const [name, size] of WIDTHS) {
      await page.setViewportSize(size);
      await go(`/dashboard/webhooks/${subscriptionId}`);
      await shot(`delivery-log-${name}`, true);
      const height = (await page.evaluate('document.documentElement.scrollHeight')) as number;
      process.stdout.write(`# delivery log page at ${size.width} px: ${height} px tall\n`);
    }
    await page.setViewportSize(PHONE);
    await go(`/dashboard/webhooks/${subscriptionId}`);
    const height = (await page.evaluate('document.documentElement.scrollHeight')) as number;
    assert.ok(height < 8_500, `${height} px tall at 390 px`);
    const rows = page.locator('section[aria-labelledby="log-title"] tbody tr');
    const seen = new Set<string>();
    const collect = async () => {
      for (const href of await rows
        .locator('a[href*="/attempts/"]')
        .evaluateAll((as) => as.map((a) => a.getAttribute('href'))))
        seen.add(String(href));
    };
    await collect();
    assert.ok(seen.size < OK_ATTEMPTS + FAILED_ATTEMPTS, `${seen.size} attempts on the first page`);
    await page.getByRole('link', { name: /Older/ }).click();
    await page.waitForURL(/cursor=/);
    await collect();
    await shot('delivery-log-page-2-phone', true);
    while ((await page.getByRole('link', { name: /Older/ }).count()) > 0) {
      await page.getByRole('link', { name: /Older/ }).click();
      await page.waitForLoadState();
      await collect();
    }
    assert.equal(seen.size, OK_ATTEMPTS + FAILED_ATTEMPTS, 'every attempt once, over the pages');
    await page.setViewportSize(WIDE);
  });

  it('usage on a phone: no table cuts a column without saying it scrolls', async () => {
    for (const [name, size] of WIDTHS) {
      await page.setViewportSize(size);
      await go('/dashboard/usage');
      await page.locator('#country-title').scrollIntoViewIfNeeded();
      await shot(`usage-countries-${name}`);
      await shot(`usage-${name}`, true);
    }
    await page.setViewportSize(PHONE);
    await go('/dashboard/usage');
    const boxes = await page.locator('main .table-wrap').evaluateAll((els) =>
      els.map((e) => {
        const el = e as unknown as {
          scrollWidth: number;
          clientWidth: number;
          previousElementSibling: { className: string; getBoundingClientRect(): { height: number } } | null;
          getAttribute(n: string): string | null;
        };
        const hint = el.previousElementSibling;
        return {
          label: el.getAttribute('aria-labelledby') ?? `${el.scrollWidth}/${el.clientWidth}`,
          cut: el.scrollWidth > el.clientWidth + 1,
          hinted: !!hint && hint.className.includes('scroll-hint') && hint.getBoundingClientRect().height > 0,
        };
      }),
    );
    assert.ok(boxes.length >= 3);
    for (const b of boxes) assert.ok(!b.cut || b.hinted, `${b.label}: cut without a hint`);
  });

  it('breadcrumbs end with the page they lead to, not a "/"', async () => {
    for (const [name, size] of WIDTHS) {
      await page.setViewportSize(size);
      await go(`/dashboard/webhooks/${subscriptionId}/attempts/${attemptId}`);
      await page.locator('.crumbs').screenshot({ path: shotPath(`breadcrumbs-${name}`) });
    }
    await page.setViewportSize(WIDE);
    for (const path of [
      '/dashboard/keys/new',
      `/dashboard/keys/${idleKeyId}`,
      `/dashboard/keys/${idleKeyId}/revoke`,
      '/dashboard/webhooks/new',
      `/dashboard/webhooks/${subscriptionId}`,
      `/dashboard/webhooks/${subscriptionId}/delete`,
      `/dashboard/webhooks/${subscriptionId}/attempts/${attemptId}`,
      `/dashboard/calls/${frenchCallId}`,
      `/dashboard/messages/${messageId}`,
    ]) {
      await go(path);
      const text = ((await page.locator('.crumbs').textContent()) ?? '').trim();
      assert.doesNotMatch(text, /\/$/, `${path}: “${text}”`);
      assert.equal(await page.locator('.crumbs [aria-current="page"]').count(), 1, path);
    }
  });

  it('demo data: a French call greets in French, and outbound cost by country agrees with the calls part of the spend per key', async () => {
    for (const [name, size] of WIDTHS) {
      await page.setViewportSize(size);
      await go(`/dashboard/calls/${frenchCallId}`);
      await page.locator('.transcript').screenshot({ path: shotPath(`demo-french-transcript-${name}`) });
      await go('/dashboard/usage');
      await page.locator('#spend-title').scrollIntoViewIfNeeded();
      await shot(`demo-usage-spend-${name}`);
    }
    await page.setViewportSize(WIDE);
    await go(`/dashboard/calls/${frenchCallId}`);
    const transcript = (await page.locator('.transcript').textContent()) ?? '';
    assert.match(transcript, /Bonjour/);
    assert.doesNotMatch(transcript, /\bthere\b/);
    await go('/dashboard/usage');
    const callSpend = (await page.locator('#spend-calls-total').textContent())?.trim();
    const countrySpend = (await page.locator('#country-key-spend-total').textContent())?.trim();
    assert.ok(callSpend && callSpend !== '$0.00', `spend per key on calls: ${callSpend}`);
    assert.equal(countrySpend, callSpend);
    const messageSpend = (await page.locator('#spend-messages-total').textContent())?.trim();
    assert.equal(messageSpend, '$0.04', "the demo's three texts and these two, one segment each, all billed");
  });

  it('every page passes an axe audit (WCAG 2.1 A and AA) at 1280 and 390 px', async () => {
    const submitWithoutBrowserChecks = async (button: string) => {
      await page
        .locator('form.card')
        .evaluate((f) => ((f as unknown as { noValidate: boolean }).noValidate = true));
      await page.getByRole('button', { name: button }).click();
      await page.waitForLoadState();
    };
    const signedIn: [string, () => Promise<unknown>][] = [
      ['keys', () => go('/dashboard/keys')],
      ['key-new', () => go('/dashboard/keys/new')],
      [
        'key-new-errors',
        async () => {
          await go('/dashboard/keys/new');
          await page.getByLabel(/Daily outbound spend cap/).fill('lots');
          await page.getByLabel('Countries for outbound calls').fill('ZZ');
          await submitWithoutBrowserChecks('Create key');
          assert.equal(await page.locator('.flash-error').count(), 1);
        },
      ],
      [
        'key-created',
        async () => {
          await go('/dashboard/keys/new');
          await page.getByLabel('Name').fill('Audit');
          await page.getByRole('button', { name: 'Create key' }).click();
          await page.locator('#secret-value').waitFor();
        },
      ],
      ['key', () => go(`/dashboard/keys/${idleKeyId}`)],
      ['key-revoke', () => go(`/dashboard/keys/${idleKeyId}/revoke`)],
      ['webhooks', () => go('/dashboard/webhooks')],
      ['webhook-new', () => go('/dashboard/webhooks/new')],
      [
        'webhook-new-errors',
        async () => {
          await go('/dashboard/webhooks/new');
          await page.getByLabel('Endpoint URL').fill('not a url');
          await submitWithoutBrowserChecks('Add endpoint');
          assert.equal(await page.locator('.flash-error').count(), 1);
        },
      ],
      ['webhook', () => go(`/dashboard/webhooks/${subscriptionId}`)],
      ['webhook-failed', () => go(`/dashboard/webhooks/${subscriptionId}?outcome=failed`)],
      ['webhook-attempt', () => go(`/dashboard/webhooks/${subscriptionId}/attempts/${attemptId}`)],
      ['webhook-delete', () => go(`/dashboard/webhooks/${subscriptionId}/delete`)],
      ['calls', () => go('/dashboard/calls')],
      ['calls-errors', () => go('/dashboard/calls?from=yesterday')],
      ['call', () => go(`/dashboard/calls/${frenchCallId}`)],
      ['messages', () => go('/dashboard/messages')],
      ['messages-errors', () => go('/dashboard/messages?assistant_id=someone')],
      ['message', () => go(`/dashboard/messages/${messageId}`)],
      ['assistants', () => go('/dashboard/assistants')],
      ['usage', () => go('/dashboard/usage')],
      // The test view (its switch and its amber band), then back to live for the pages after it.
      ...(['test', 'live'] as const).map((mode): [string, () => Promise<unknown>] => [
        `calls-${mode}-view`,
        async () => {
          await go('/dashboard/calls');
          await page.getByRole('button', { name: `View ${mode} data` }).click();
          await page.waitForLoadState();
          assert.equal(await page.locator('.test-banner').count(), mode === 'test' ? 1 : 0);
        },
      ]),
      ['not-found', () => go('/dashboard/keys/00000000-0000-4000-8000-000000000000')],
      ['docs', () => go('/docs')],
      [
        'docs-contents',
        async () => {
          await go('/docs');
          const toc = page.locator('details.toc');
          if (await toc.isVisible()) await toc.locator('summary').click();
        },
      ],
    ];
    const signedOut = await browser.newContext({ ignoreHTTPSErrors: true, viewport: WIDE });
    const visitor = await signedOut.newPage();
    const signedOutPages: [string, () => Promise<unknown>][] = [
      ['sign-in', () => visitor.goto(`${t.url}/dashboard/login`)],
      [
        'sign-in-error',
        async () => {
          await visitor.goto(`${t.url}/dashboard/login`);
          await visitor.getByLabel('Email').fill(email);
          await visitor.getByLabel('Password').fill('not the password');
          await visitor.getByRole('button', { name: 'Sign in' }).click();
          await visitor.locator('.flash-error').waitFor();
        },
      ],
    ];
    const counts: Record<string, number> = {};
    const failures: string[] = [];
    const audit = async (p: Page, pages: [string, () => Promise<unknown>][]) => {
      for (const [width, size] of WIDTHS) {
        await p.setViewportSize(size);
        for (const [name, open] of pages) {
          await open();
          await p.screenshot({ path: shotPath(`axe-${name}-${width}`) });
          const violations: AxeViolation[] = await axeAudit(p);
          counts[`${name} ${width}`] = failingElements(violations);
          for (const v of violations)
            failures.push(
              `${name} at ${size.width} px: ${v.rule} (${v.help}) on ${v.targets.slice(0, 5).join(', ')}`,
            );
        }
      }
    };
    await audit(page, signedIn);
    await audit(visitor, signedOutPages);
    await signedOut.close();
    await page.setViewportSize(WIDE);
    writeFileSync(new URL('axe-counts.json', SHOTS), `${JSON.stringify(counts, null, 2)}\n`);
    assert.deepEqual(failures, []);
  });
});
