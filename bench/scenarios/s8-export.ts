import https from 'node:https';
import { addRaw, addRow, type Ctx } from '../lib/context.ts';
import { httpsGet } from '../lib/https-get.ts';
import { fmt, judge } from '../lib/report.ts';
import type { RunningService } from '../lib/service.ts';

const MB = 1024 * 1024;
/** Pages of the baseline walk, walked twice (warm-up, then timed): within the customer's 600 requests a minute. */
const PAGES = 250;
const PAGE_LIMIT = 100;
/** Customers (1,000 calls each, in both data sets) whose pages and export warm the process first. */
const WARM_CUSTOMERS = 10;

/** Reads a whole export, counting lines and bytes without keeping them. */
function readExport(url: string, key: string): Promise<{ status: number; lines: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      url,
      { headers: { authorization: `Bearer ${key}` }, rejectUnauthorized: false, timeout: 600_000 },
      (res) => {
        let lines = 0;
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, lines, bytes }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('export timed out')));
    req.on('error', reject);
  });
}

/**
 * Scenario 8: the large customer's calls exported at once (`GET /calls/export`, NDJSON: one line per call) against
 * the same rows read as `GET /calls` pages of 100 with their cursor (a walk of 250 pages, timed the second time;
 * within the customer's window): rows per second of each, and the API process's peak RSS during each.
 */
export async function exportCalls(ctx: Ctx, svc: RunningService): Promise<void> {
  const { deep } = ctx.fixture;
  await warmUp(ctx, svc);
  let walked = 0;
  const walk = await sampledPeak(svc, async () => {
    const started = performance.now();
    walked = await walkPages(svc, deep.key, PAGES);
    return (performance.now() - started) / 1000;
  });
  const exported = await sampledPeak(svc, async () => {
    const started = performance.now();
    const read = await readExport(`${svc.url}/api/v1/calls/export?format=ndjson`, deep.key);
    if (read.status !== 200) throw new Error(`GET /calls/export: ${read.status}`);
    return { ...read, seconds: (performance.now() - started) / 1000 };
  });
  const pageRate = walked / walk.value;
  const exportRate = exported.value.lines / exported.value.seconds;
  addRaw(ctx, 's8', { walk, walked, exported });
  ctx.log(
    `  export ${fmt(exported.value.lines)} calls in ${fmt(exported.value.seconds, 1)} s (${fmt(exportRate)}/s, ` +
      `${fmt(exported.value.bytes / MB)} MB); pages ${fmt(walked)} calls in ${fmt(walk.value, 1)} s (${fmt(pageRate)}/s)`,
  );
  addRow(ctx, {
    scenario: 8,
    what: `export of ${fmt(exported.value.lines)} calls (NDJSON, one request) ÷ GET /calls pages of ${PAGE_LIMIT} with the cursor (${fmt(walked)} calls), calls per second`,
    value: `${fmt(exportRate)}/s vs ${fmt(pageRate)}/s`,
    ratio: exportRate / pageRate,
    target: '≥ 1',
    status: judge(exportRate >= pageRate && exported.value.lines === deep.calls),
    tool: 'bench',
    note: `${fmt(exported.value.bytes / MB)} MB in ${fmt(exported.value.seconds, 1)} s; every call of the customer: ${exported.value.lines === deep.calls ? 'yes' : `no (${exported.value.lines} of ${deep.calls})`}`,
  });
  const walkPeak = walk.peak ?? 0;
  const exportPeak = exported.peak ?? 0;
  addRow(ctx, {
    scenario: 8,
    what: 'API process peak RSS during the export ÷ during the page walk (same process, the walk first)',
    value: `${fmt(exportPeak / MB)} MB vs ${fmt(walkPeak / MB)} MB`,
    ratio: exportPeak / Math.max(1, walkPeak),
    target: '≤ 1.1',
    status: judge(walk.peak !== null && exported.peak !== null && exportPeak <= 1.1 * walkPeak),
    tool: 'bench',
    note: `flat memory: one batch of 1,000 calls in flight, one chunk ahead of the socket (${fmt(exported.value.lines)} calls exported, ${fmt(walked)} paged)`,
  });
}

/** Reads up to `pages` pages of a customer's calls with the cursor; returns how many calls they held. */
async function walkPages(svc: RunningService, key: string, pages: number): Promise<number> {
  let walked = 0;
  let cursor: string | null = null;
  for (let i = 0; i < pages; i++) {
    const page = await httpsGet(
      `${svc.url}/api/v1/calls?limit=${PAGE_LIMIT}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      key,
    );
    if (page.status !== 200) throw new Error(`GET /calls page ${i}: ${page.status}`);
    const body = JSON.parse(page.body) as { data: unknown[]; next_cursor: string | null };
    walked += body.data.length;
    cursor = body.next_cursor;
    if (!cursor) break;
  }
  return walked;
}

/**
 * Both paths once on other customers, then the walk's own pages once, before either is timed. The service starts
 * fresh for this scenario: without the first, the walk ran on a cold process and the export after it on a warm one.
 * Without the second, a full run's walk read pages that the scenarios before it had pushed out of the database's
 * cache (1,000,000 calls; PostgreSQL: 9,900 calls/s on a first walk, 44,700 on a second of the same pages, against
 * 41,600 and 47,300 on the quick data set, which stays cached), so the ratio read the data set's size.
 */
async function warmUp(ctx: Ctx, svc: RunningService): Promise<void> {
  for (const customer of ctx.fixture.main.slice(0, WARM_CUSTOMERS)) {
    await walkPages(svc, customer.key, PAGES);
    const read = await readExport(`${svc.url}/api/v1/calls/export?format=ndjson`, customer.key);
    if (read.status !== 200) throw new Error(`warm-up GET /calls/export: ${read.status}`);
  }
  await walkPages(svc, ctx.fixture.deep.key, PAGES);
}

async function sampledPeak<T>(
  svc: RunningService,
  run: () => Promise<T>,
): Promise<{ value: T; peak: number | null }> {
  const stop = svc.sampleRss();
  const value = await run();
  return { value, peak: stop() };
}
