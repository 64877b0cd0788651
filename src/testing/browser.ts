import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's Chromium, driven by playwright-core (scripts/install-browser.sh installs it). */
export const CHROMIUM = '/usr/bin/chromium';

/** The `skip` option of a browser test: a reason when Chromium is missing, so a run without it says so. */
export const browserSkip: string | false = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} not found: browser tests skipped (install it with scripts/install-browser.sh)`;

export const WIDE = { width: 1280, height: 860 };
export const PHONE = { width: 390, height: 844 };

export const launchBrowser = (): Promise<Browser> =>
  chromium.launch({
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

/** The rules of WCAG 2.1 level A and AA, as axe-core tags them. */
export const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

export type AxeViolation = { rule: string; impact: string | null; help: string; targets: string[] };

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core over the page as it is now and returns one entry per failing rule. The engine is evaluated
 * through the DevTools protocol, which the page's Content-Security-Policy does not govern: the pages are
 * audited under the CSP they are served with, not a weakened one.
 */
export async function axeAudit(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (tags) => {
    type Result = {
      violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
    };
    const axe = (globalThis as unknown as { axe: { run(context: unknown, o: unknown): Promise<Result> } })
      .axe;
    const doc = (globalThis as unknown as { document: unknown }).document;
    const result = await axe.run(doc, {
      runOnly: { type: 'tag', values: tags },
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({
      rule: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.map(String).join(' ')),
    }));
  }, WCAG_21_AA);
}

/** How many elements fail, over every rule. */
export const failingElements = (violations: AxeViolation[]): number =>
  violations.reduce((n, v) => n + v.targets.length, 0);
