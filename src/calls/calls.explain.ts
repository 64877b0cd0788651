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
import type { ListCallsQuery } from './calls.query.ts';
import {
  type CallListFilter,
  type CallPosition,
  callPageQuery,
  callPositionQuery,
} from './calls.read.repository.ts';
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
await close();
