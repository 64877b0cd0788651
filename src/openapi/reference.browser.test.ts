import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkip, launchBrowser } from '../testing/browser.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';

/**
 * The reference's search box and examples in a real headless Chromium (Debian's package), with script on and
 * off: the search is a plain form the server answers, so both must behave the same, and the strict CSP must
 * never have to refuse anything.
 */
const SHOTS = new URL('../../test-artifacts/docs/', import.meta.url);

describe('the reference at /docs in a real browser', { skip: browserSkip }, () => {
  let t: TestApp;
  let browser: Browser;
  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    t = await startTestApp();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A page with script on or off, recording what the console and the CSP report. */
  async function open(
    javaScriptEnabled: boolean,
    width: number,
  ): Promise<{ page: Page; complaints: string[] }> {
    const context = await browser.newContext({
      ignoreHTTPSErrors: true,
      javaScriptEnabled,
      viewport: { width, height: 900 },
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const complaints: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') complaints.push(m.text());
    });
    page.on('pageerror', (e) => complaints.push(e.message));
    return { page, complaints };
  }

  const sectionIds = (page: Page) =>
    page.locator('main section.op, main section.schema').evaluateAll((els) => els.map((e) => e.id));

  for (const javaScriptEnabled of [true, false]) {
    const mode = javaScriptEnabled ? 'with script' : 'without script';
    it(`searches from the box and back to everything, ${mode}, the CSP refusing nothing`, async () => {
      const { page, complaints } = await open(javaScriptEnabled, 1280);
      await page.goto(`${t.url}/docs`);
      const all = (await sectionIds(page)).length;
      await page.getByLabel('Search operations and fields').fill('idempotency');
      await page.getByLabel('Search operations and fields').press('Enter');
      await page.waitForURL(/\/docs\?q=idempotency$/);
      assert.equal(
        await page.getByRole('status').textContent(),
        '2 operations, 0 webhook events, 0 schemas match idempotency. Show everything',
      );
      assert.deepEqual(await sectionIds(page), ['createOutboundCall', 'sendSms']);
      assert.equal(await page.getByLabel('Search operations and fields').inputValue(), 'idempotency');
      // The examples are there to read and copy, and reachable from the keyboard (they may scroll sideways).
      const curl = page.locator('#createOutboundCall figure.sample pre').first();
      assert.match((await curl.textContent()) ?? '', /^curl "\$BASE_URL\/api\/v1\/outbound-calls"/);
      assert.equal(await curl.getAttribute('tabindex'), '0');
      await page.screenshot({
        path: new URL(`search-${javaScriptEnabled ? 'js' : 'nojs'}.png`, SHOTS).pathname,
        fullPage: false,
      });

      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByLabel('Search operations and fields').fill('nothing matches this');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/q=nothing\+matches\+this/);
      assert.match((await page.getByRole('status').textContent()) ?? '', /^Nothing matches/);
      assert.deepEqual(await sectionIds(page), []);
      await page.getByRole('link', { name: 'Show everything' }).click();
      await page.waitForURL(/\/docs$/);
      assert.equal((await sectionIds(page)).length, all);
      assert.deepEqual(complaints, [], 'no console error, no CSP report');
    });
  }

  it('has no page-wide horizontal scroll on a phone, searching or not; the examples scroll in their own box', async () => {
    const { page, complaints } = await open(false, 390);
    for (const path of ['/docs', '/docs?q=external_id']) {
      await page.goto(`${t.url}${path}`);
      const [scroll, client] = (await page.evaluate(
        '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
      )) as [number, number];
      assert.ok(scroll <= client, `${path}: ${scroll} > ${client}`);
    }
    const wide = await page
      .locator('#listCalls figure.sample pre')
      .last()
      .evaluate((e) => e.scrollWidth > e.clientWidth);
    assert.ok(wide, 'a long example line scrolls inside its box');
    await page.screenshot({ path: new URL('search-phone.png', SHOTS).pathname, fullPage: false });
    assert.deepEqual(complaints, []);
  });
});
