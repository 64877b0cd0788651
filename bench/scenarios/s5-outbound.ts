import { addRaw, addRow, CONNECTIONS, type Ctx, THREADS } from '../lib/context.ts';
import { warmKeys } from '../lib/https-get.ts';
import { type LoadResult, runLoad } from '../lib/load.ts';
import type { LoadSpec } from '../lib/load-spec.ts';
import { medianBy, ms, rps, validity } from '../lib/report.ts';
import { alternatedRounds } from '../lib/rounds.ts';
import { loadListCalls } from './s1-list-calls.ts';

/**
 * Pairs of runs, outbound calls and GET /calls side by side on the same service, each pair's order the other way
 * round from the last. Set against scenario 1's GET /calls, run minutes earlier, the ratio carried whatever the
 * machine did in between: a full and a quick run read PostgreSQL's at 0.27 and 0.14 while scenario 1's own floor
 * moved from 1,095 to 1,412 req/s (docs/performance.md, the twentieth section).
 */
const PAIRS = 3;

/**
 * Scenario 5: POST /outbound-calls with the built-in simulator provider, a fresh Idempotency-Key per
 * request, the country and spend-cap checks (the bench keys' caps are raised so they never refuse),
 * rotating over 1,000 keys of 200 customers kept apart from the read data; against scenario 1's GET /calls on the
 * same service, in alternated pairs (`PAIRS`), each row reading the median pair.
 */
export async function outbound(ctx: Ctx, url: string): Promise<void> {
  const runId = `bench-${Date.now().toString(36)}`;
  const spec = (seconds: number, suffix: string): LoadSpec => ({
    url,
    mode: 'outbound',
    dataFile: ctx.files.outbound,
    connections: CONNECTIONS,
    threads: THREADS,
    seconds,
    runId: `${runId}-${suffix}`,
  });
  await warmKeys(
    url,
    ctx.fixture.main.map((k) => k.key),
  );
  await loadListCalls(ctx, url, ctx.sizes.warmupSeconds);
  await runLoad(ctx.tool, spec(ctx.sizes.warmupSeconds, 'w'));
  const pairs = await alternatedRounds<'list' | 'outbound', LoadResult>(
    PAIRS,
    (i) => [
      ['list', () => loadListCalls(ctx, url, ctx.sizes.loadSeconds)],
      ['outbound', () => runLoad(ctx.tool, spec(ctx.sizes.loadSeconds, `m${i}`))],
    ],
    (p, i) =>
      ctx.log(
        `  pair ${i + 1}: outbound ${rps(p.outbound)}, p99 ${ms(p.outbound.p99)}; GET /calls ${rps(p.list)}`,
      ),
  );
  addRaw(ctx, 's5', { pairs });
  const throughput = medianBy(pairs, (p) => p.outbound.rps / p.list.rps, 'pairs');
  const tail = medianBy(pairs, (p) => p.outbound.p99 / p.list.p99, 'pairs');
  addRow(ctx, {
    scenario: 5,
    what: `POST /outbound-calls throughput ÷ GET /calls on the same service (median of ${PAIRS} alternated pairs)`,
    value: `${rps(throughput.item.outbound)} vs ${rps(throughput.item.list)}`,
    ratio: throughput.ratio,
    target: 'report',
    status: 'info',
    note: [
      throughput.note,
      pairs.some((p) => p.outbound.requests === 0) ? 'no request completed within a run' : '',
      ...pairs.flatMap((p) => [validity(p.outbound), validity(p.list)]),
    ]
      .filter(Boolean)
      .join('; '),
  });
  addRow(ctx, {
    scenario: 5,
    what: `POST /outbound-calls p99 ÷ GET /calls p99, both flat out (median of ${PAIRS} alternated pairs)`,
    value: `${ms(tail.item.outbound.p99)} vs ${ms(tail.item.list.p99)}`,
    ratio: tail.ratio,
    target: 'report',
    status: 'info',
    note: tail.note,
  });
}
