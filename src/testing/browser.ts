import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium (scripts/install-browser.sh), driven by playwright-core. */
export const CHROMIUM = '/usr/bin/chromium';

/** For `describe(…, { skip })`: false when the browser is there, else why the browser tests are skipped. */
export const skipWithoutBrowser: string | false = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} not found: browser tests skipped (install it with scripts/install-browser.sh)`;

/** A headless Chromium that reaches nothing but the pages a test opens. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
