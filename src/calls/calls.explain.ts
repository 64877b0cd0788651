/**
 * Query plans and page times on a large data set, for docs/query-plans.md. Not part of the service.
 *
 *   DATABASE_URL=postgres://… node src/calls/calls.explain.ts
 *
 * Uses the customer with the most calls; seed one with `npm run cli -- seed --customers 1 --calls 2000000`.
 */
import { type Compilable, sql } from 'kysely';
import { openDatabase } from '../db/index.ts';
import { instantFromMicros } from '../pagination/index.ts';
import { createSigner } from '../signer.ts';
import type { CallListFilter } from './calls.filter.repository.ts';
import type { ListCallsQuery } from './calls.query.ts';
import { type CallPosition, callPageQuery, callPositionQuery } from './calls.read.repository.ts';
import { createCallsService } from './calls.service.ts';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('Set DATABASE_URL to the database to explain.');
const { db, close } = await openDatabase({ url, poolSize: 1 });
const out = (line = '') => process.stdout.write(`${line}\n`);

const { rows: top } = await sql<{ customer_id: string; n: string }>`
  select customer_id, count(*) as n from calls group by customer_id order by n desc limit 1`.execute(db);
const customerId = top[0]?.customer_id ?? '';
const assistant = await db
  .selectFrom('calls')
  .select('assistant_id')
  .where('customer_id', '=', customerId)
  .limit(1)
  .executeTakeFirstOrThrow();
const { rows: size } = await sql<{ n: string }>`select count(*) as n from calls`.execute(db);
out(`calls in table: ${size[0]?.n}; customer ${customerId}: ${top[0]?.n} calls`);

async function explain(title: string, query: Compilable<unknown>): Promise<void> {
  const compiled = query.compile();
  const result = await db.executeQuery<{ 'QUERY PLAN': string }>({
    ...compiled,
    sql: `explain (analyze, buffers, costs off) ${compiled.sql}`,
  });
  out(`\n#### ${title}\n\n\`\`\`text`);
  for (const row of result.rows) out(row['QUERY PLAN']);
  out('```');
}

const filter: CallListFilter = { customerId };
const deep = await callPositionQuery(db, filter, 999_999).executeTakeFirst();
const deepAt = deep ? instantFromMicros(BigInt(deep.position_micros)) : null;
const after: CallPosition | null = deep && deepAt ? { atIso: deepAt.iso, id: deep.id } : null;
const week = { fromIso: '2026-10-01T00:00:00Z', toIso: '2026-10-08T00:00:00Z' };
const shapes: [string, CallListFilter, CallPosition | null][] = [
  ['first page, no filter', filter, null],
  ['direction=inbound', { ...filter, direction: 'inbound' }, null],
  ['assistant_id', { ...filter, assistantId: assistant.assistant_id }, null],
  [
    'assistant_id + direction=outbound',
    { ...filter, assistantId: assistant.assistant_id, direction: 'outbound' },
    null,
  ],
  ['from/to (one week)', { ...filter, ...week }, null],
  ['cursor 1,000,000 rows deep', filter, after],
  ['cursor deep + direction', { ...filter, direction: 'inbound' }, after],
];
for (const [title, f, start] of shapes)
  await explain(`GET /calls: ${title}`, callPageQuery(db, f, start, 26));

// Search (issue 39): values taken from the customer's own calls, so each filter finds something.
const sample = await db
  .selectFrom('calls')
  .select(['to_number', 'from_number', 'external_id', 'updated_at'])
  .where('customer_id', '=', customerId)
  .where('direction', '=', 'inbound')
  .orderBy('started_at', 'desc')
  .limit(1)
  .executeTakeFirstOrThrow();
const placed = await db
  .selectFrom('calls')
  .select(['external_id', 'metadata'])
  .where('customer_id', '=', customerId)
  .where('external_id', 'is not', null)
  .limit(1)
  .executeTakeFirst();
// Every pair of one call's metadata (seeded calls have none; docs/query-plans.md gives some of them metadata).
const pairs = Object.entries((placed?.metadata ?? { campaign: 'none' }) as Record<string, unknown>);
const hourAgo = new Date(sample.updated_at.getTime() - 3_600_000).toISOString();
const search: [string, CallListFilter, CallPosition | null][] = [
  ['to_number (the assistant’s line)', { ...filter, toNumber: sample.to_number }, null],
  ['from_number (a caller)', { ...filter, fromNumber: sample.from_number }, null],
  ['external_id', { ...filter, externalId: placed?.external_id ?? 'crm-1' }, null],
  ['disconnect_reason=busy', { ...filter, disconnectReason: 'busy' }, null],
  ['disconnect_reason=provider_lost (none)', { ...filter, disconnectReason: 'provider_lost' }, null],
  ...pairs.map(([key, value]): [string, CallListFilter, null] => [
    `metadata=${key}:…`,
    { ...filter, metadata: JSON.stringify({ [key]: String(value) }) },
    null,
  ]),
  ['updated_since (the last hour)', { ...filter, updatedSinceIso: hourAgo }, null],
  ['updated_since (a month)', { ...filter, updatedSinceIso: '2026-10-01T00:00:00Z' }, null],
  ['duration_min=60 (most calls)', { ...filter, durationMin: 60 }, null],
  ['duration_min=615 (few calls)', { ...filter, durationMin: 615 }, null],
  ['cost_min=0.9000 (few calls)', { ...filter, costMin: '0.9000' }, null],
  ['has_transcript=false', { ...filter, hasTranscript: false }, null],
  ['cursor deep + to_number', { ...filter, toNumber: sample.to_number }, after],
];
for (const [title, f, start] of search)
  await explain(`GET /calls: ${title}`, callPageQuery(db, f, start, 26));
await explain(
  'GET /calls: page=40000 (the page after row 999,999, found in the same statement)',
  callPageQuery(db, filter, { skipped: 999_999 }, 26),
);

// Page times through the service (query + mapping + cursor), median of 7, at increasing depth.
const calls = createCallsService({ db, signer: createSigner('explain-script-secret-0123456789abcdef') });
const median = async (fn: () => Promise<unknown>, runs = 7) => {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const began = performance.now();
    await fn();
    times.push(performance.now() - began);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]?.toFixed(2);
};
out('\n| depth (rows before the page) | cursor page, ms | `page` (offset) page, ms |\n|---|---|---|');
for (const depth of [0, 10_000, 100_000, 1_000_000, Number(top[0]?.n ?? 0) - 25]) {
  // The cursor that ends just before `depth`: walk there once with one offset query (not timed).
  const q: ListCallsQuery = { limit: 25 };
  let cursor: string | undefined;
  if (depth > 0) {
    const before = await calls.listCalls(customerId, { limit: 1, page: depth - 1 });
    cursor = before.next_cursor ?? undefined;
  }
  const byCursor = await median(() => calls.listCalls(customerId, { ...q, ...(cursor ? { cursor } : {}) }));
  const byPage = await median(() => calls.listCalls(customerId, { ...q, page: Math.floor(depth / 25) }), 3);
  out(`| ${depth.toLocaleString('en-US')} | ${byCursor} | ${byPage} |`);
}

// The deep-page ratio of the search filters: the first ten pages against the last ten, walked by cursor.
const searchQueries: [string, ListCallsQuery][] = [
  // Filters of before the search, for comparison: `status` is read the same way as a range (list order, filter).
  ['status=failed (before the search)', { status: ['failed'] }],
  ['direction=outbound (before the search)', { direction: 'outbound' }],
  ['to_number (the assistant’s line)', { to_number: sample.to_number }],
  ['from_number (a caller)', { from_number: sample.from_number }],
  ['disconnect_reason=busy', { disconnect_reason: 'busy' }],
  ['duration_min=60', { duration_min: 60 }],
  ['duration_min=615 (few calls)', { duration_min: 615 }],
  ['has_transcript=false', { has_transcript: false }],
  ...pairs.map(([key, value]): [string, ListCallsQuery] => [
    `metadata=${key}:…`,
    { metadata: [[key, String(value)]] },
  ]),
  [
    'updated_since (the last day)',
    {
      updated_since: instantFromMicros(BigInt(sample.updated_at.getTime() - 86_400_000) * 1000n) ?? undefined,
    },
  ],
];
const SAMPLE_PAGES = 10;
out(
  `\n| filter | matches | first ${SAMPLE_PAGES} pages, ms | last ${SAMPLE_PAGES} pages (cursor), ms | ratio |\n|---|---|---|---|---|`,
);
for (const [title, q] of searchQueries) {
  const total = (await calls.listCalls(customerId, { ...q, limit: 100, page: 0 })).data.length;
  let count = total;
  // The number of matches, found by doubling `page` (no count query in the service).
  if (total === 100) {
    let low = 1;
    let high = 2;
    while ((await calls.listCalls(customerId, { ...q, limit: 100, page: high })).data.length === 100)
      high *= 2;
    while (high - low > 1) {
      const mid = Math.floor((low + high) / 2);
      if ((await calls.listCalls(customerId, { ...q, limit: 100, page: mid })).data.length > 0) low = mid;
      else high = mid;
    }
    count = low * 100 + (await calls.listCalls(customerId, { ...q, limit: 100, page: low })).data.length;
  }
  // One page costs what its 26 matches span: for a filter read on the list order that varies from page to page by
  // about a quarter (duration_min=615: 1,659 to 6,097 rows), so the ratio reads ten pages at each end, not one.
  const pagesFrom = async (depth: number) => {
    const before =
      depth > 0
        ? await calls.listCalls(customerId, { ...q, limit: 1, page: depth - 1 })
        : { next_cursor: null };
    let cursor = before.next_cursor ?? undefined;
    let total = 0;
    for (let i = 0; i < SAMPLE_PAGES && (i === 0 || cursor); i++) {
      const at = cursor;
      let page: Awaited<ReturnType<typeof calls.listCalls>> | undefined;
      total += Number(
        await median(async () => {
          page = await calls.listCalls(customerId, { ...q, limit: 25, ...(at ? { cursor: at } : {}) });
        }),
      );
      cursor = page?.next_cursor ?? undefined;
    }
    return total;
  };
  const first = await pagesFrom(0);
  const last = await pagesFrom(Math.max(0, count - 25 * SAMPLE_PAGES));
  out(
    `| ${title} | ${count.toLocaleString('en-US')} | ${first.toFixed(2)} | ${last.toFixed(2)} | ${(last / first).toFixed(2)} |`,
  );
}
await close();
