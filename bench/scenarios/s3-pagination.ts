import { addRaw, addRow, type Ctx } from '../lib/context.ts';
import { httpsGet } from '../lib/https-get.ts';
import { type LoadResult, runLoad, scratchFile } from '../lib/load.ts';
import { fmt, judge, medianBy, ms, valid, validity } from '../lib/report.ts';
import { alternatedRounds } from '../lib/rounds.ts';

const LIMIT = 25;
/** Timed pages a second, one connection (see `time` in `pagination`). */
const SAMPLES_PER_SECOND = 8;
/**
 * A deep page and its first page are timed in rounds, each round's order the other way round from the last, and each
 * row reads its median round. Timed once each, 25 s apart, the pair read whatever the machine did in between: the
 * search's ratio read 0.82 in a full run and 1.01 in a quick one (docs/performance.md, the twentieth section).
 */
const ROUNDS = 3;

type Timer = (path: string, samples: number, perSecond: number) => Promise<LoadResult>;
type PagePair = { first: LoadResult; deep: LoadResult };

/** `samples` of each path over `ROUNDS` alternating rounds; the pair of each round. */
async function pairs(time: Timer, firstPath: string, deepPath: string, samples: number): Promise<PagePair[]> {
  const each = Math.ceil(samples / ROUNDS);
  return alternatedRounds<keyof PagePair, LoadResult>(ROUNDS, () => [
    ['first', () => time(firstPath, each, SAMPLES_PER_SECOND)],
    ['deep', () => time(deepPath, each, SAMPLES_PER_SECOND)],
  ]);
}

/** The row of a deep page against its first page: the median round's ratio of their median times. */
function pairRow(ctx: Ctx, what: string, rounds: PagePair[]) {
  const m = medianBy(rounds, (r) => r.deep.p50 / r.first.p50, 'rounds');
  const { first, deep } = m.item;
  addRow(ctx, {
    scenario: 3,
    what: `${what} (median of ${rounds.length} rounds of ${fmt(deep.requests)} and ${fmt(first.requests)})`,
    value: `${ms(deep.p50)} vs ${ms(first.p50)}`,
    ratio: m.ratio,
    target: '≤ 1.2',
    status: judge(rounds.every((r) => valid(r.first, r.deep)) ? m.ratio <= 1.2 : null),
    note: [m.note, ...rounds.flatMap((r) => [validity(r.first), validity(r.deep)])]
      .filter(Boolean)
      .join('; '),
  });
  return m.item;
}

/**
 * Scenario 3: one customer with N calls. The first page, a cursor page whose first row is N − 25
 * rows deep, and `page` at the same depth, each requested one at a time over one kept-alive
 * connection (wrk, 1 connection, paced) so the figure is the time of a page, not a queue. The
 * cursor is the next_cursor of the page before it (fetched through `page`, once).
 */
export async function pagination(ctx: Ctx, url: string): Promise<void> {
  const { deep } = ctx.fixture;
  const depth = deep.calls - LIMIT;
  const base = `${url}/api/v1/calls?limit=${LIMIT}`;
  const before = await httpsGet(`${base}&page=${depth / LIMIT - 1}`, deep.key);
  const cursor = (JSON.parse(before.body) as { next_cursor?: string | null }).next_cursor;
  if (before.status !== 200 || !cursor) throw new Error(`no cursor before depth ${depth}: ${before.status}`);
  const paths = {
    first: `/api/v1/calls?limit=${LIMIT}`,
    cursor: `/api/v1/calls?limit=${LIMIT}&cursor=${encodeURIComponent(cursor)}`,
    page: `/api/v1/calls?limit=${LIMIT}&page=${depth / LIMIT}`,
  };
  // Check the deep pages are the same rows (the last 25), so the two are timed on the same work.
  const [viaCursor, viaPage] = await Promise.all([
    httpsGet(`${url}${paths.cursor}`, deep.key),
    httpsGet(`${url}${paths.page}`, deep.key),
  ]);
  const ids = (b: string) => (JSON.parse(b) as { data: { id: string }[] }).data.map((c) => c.id).join();
  if (ids(viaCursor.body) !== ids(viaPage.body) || ids(viaCursor.body) === '')
    throw new Error('cursor and page at the same depth returned different rows');

  const dataFile = scratchFile(`${ctx.backend.name}-deep-key.txt`, deep.key);
  // Paced under the customer's 600/min window: at SAMPLES_PER_SECOND no minute holds more than 480 timed pages,
  // plus the page alias's and the search count's few. (At 20/s the full run's four runs of 200 ran into it: the
  // search's pages were answered 429, and timed as such, from 2026-11-27 to 2026-11-28.)
  const time = (path: string, samples: number, perSecond: number): Promise<LoadResult> =>
    runLoad(ctx.tool, {
      url,
      mode: 'fixed',
      path,
      dataFile,
      connections: 1,
      threads: 1,
      seconds: Math.max(1, Math.ceil(samples / perSecond)),
      rate: perSecond,
    });
  const rounds = await pairs(time, paths.first, paths.cursor, ctx.sizes.pageSamples);
  const viaPageRun = await time(paths.page, ctx.sizes.deepPageSamples, 2);
  const { first, deep: viaCursorRun } = pairRow(ctx, `cursor page ${fmt(depth)} deep ÷ first page`, rounds);
  addRaw(ctx, 's3', { depth, first, cursor: viaCursorRun, page: viaPageRun, rounds });
  ctx.log(
    `  first page p50 ${ms(first.p50)}, cursor at ${fmt(depth)} p50 ${ms(viaCursorRun.p50)}, page p50 ${ms(viaPageRun.p50)} (median round)`,
  );
  await searchFilter(ctx, url, time);
  addRow(ctx, {
    scenario: 3,
    what: `\`page\` alias at the same depth ÷ first page (median of ${fmt(viaPageRun.requests)})`,
    value: ms(viaPageRun.p50),
    ratio: viaPageRun.p50 / first.p50,
    target: 'report',
    status: 'info',
    note: validity(viaPageRun) || 'offset: the skipped rows are read from the index',
    bySize: 'an offset reads every row it skips, and the quick data set is a tenth as deep',
  });
}

/** How many calls a filtered list has: `page` with 100 a page, doubled then halved (no count in the API). */
async function countOf(base: string, key: string): Promise<number> {
  const rowsAt = async (page: number) => {
    const res = await httpsGet(`${base}&limit=100&page=${page}`, key);
    if (res.status !== 200) throw new Error(`count: ${res.status} ${res.body}`);
    return (JSON.parse(res.body) as { data: unknown[] }).data.length;
  };
  if ((await rowsAt(0)) < 100) return rowsAt(0);
  let low = 0;
  let high = 1;
  while ((await rowsAt(high)) === 100) [low, high] = [high, high * 2];
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if ((await rowsAt(mid)) === 100) low = mid;
    else high = mid;
  }
  return high * 100 + (await rowsAt(high));
}

/**
 * A search filter of issue 39 (docs/query-plans.md): `to_number`, the assistant's line of the newest inbound call (a
 * fifth of the calls), served in list order by calls_customer_to_started_idx. Its first page against its cursor
 * page 25 rows from its end, as above.
 */
async function searchFilter(ctx: Ctx, url: string, time: Timer): Promise<void> {
  const { deep } = ctx.fixture;
  const newest = await httpsGet(`${url}/api/v1/calls?limit=1&direction=inbound`, deep.key);
  const line = (JSON.parse(newest.body) as { data: { to_number: string }[] }).data[0]?.to_number;
  if (newest.status !== 200 || !line) throw new Error(`no inbound call: ${newest.status}`);
  const filter = `to_number=${encodeURIComponent(line)}`;
  const matches = await countOf(`${url}/api/v1/calls?${filter}`, deep.key);
  const depth = matches - LIMIT;
  const before = await httpsGet(`${url}/api/v1/calls?${filter}&limit=1&page=${depth - 1}`, deep.key);
  const cursor = (JSON.parse(before.body) as { next_cursor?: string | null }).next_cursor;
  if (before.status !== 200 || !cursor) throw new Error(`no cursor before depth ${depth}: ${before.status}`);
  const rounds = await pairs(
    time,
    `/api/v1/calls?limit=${LIMIT}&${filter}`,
    `/api/v1/calls?limit=${LIMIT}&${filter}&cursor=${encodeURIComponent(cursor)}`,
    ctx.sizes.pageSamples,
  );
  const { first, deep: deepRun } = pairRow(
    ctx,
    `search \`to_number\` (${fmt(matches)} calls): cursor page ${fmt(depth)} deep ÷ its first page`,
    rounds,
  );
  addRaw(ctx, 's3-search', { filter: 'to_number', matches, depth, first, cursor: deepRun, rounds });
  ctx.log(
    `  to_number (${fmt(matches)} calls): first page p50 ${ms(first.p50)}, cursor at ${fmt(depth)} p50 ${ms(deepRun.p50)} (median round)`,
  );
}
