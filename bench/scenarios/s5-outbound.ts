import { addRaw, addRow, CONNECTIONS, type Ctx, THREADS } from '../lib/context.ts';
import { type LoadResult, runLoad } from '../lib/load.ts';
import type { LoadSpec } from '../lib/load-spec.ts';
import { ms, rps, validity } from '../lib/report.ts';

/**
 * Scenario 5: POST /outbound-calls with the built-in simulator provider, a fresh Idempotency-Key per
 * request, the country and spend-cap checks (the bench keys' caps are raised so they never refuse),
 * rotating over 1,000 keys of 200 customers kept apart from the read data. Compared with scenario 1.
 */
export async function outbound(ctx: Ctx, url: string, listCalls: LoadResult | null): Promise<void> {
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
  await runLoad(ctx.tool, spec(ctx.sizes.warmupSeconds, 'w'));
  const r = await runLoad(ctx.tool, spec(ctx.sizes.loadSeconds, 'm'));
  ctx.log(`  outbound: ${rps(r)}, p99 ${ms(r.p99)}`);
  addRaw(ctx, 's5', { outbound: r });
  addRow(ctx, {
    scenario: 5,
    what: 'POST /outbound-calls throughput ÷ GET /calls (scenario 1)',
    value: listCalls ? `${rps(r)} vs ${rps(listCalls)}` : rps(r),
    ratio: listCalls ? r.rps / listCalls.rps : null,
    target: 'report',
    status: 'info',
    note: [r.requests === 0 ? 'no request completed within the run' : '', validity(r)]
      .filter(Boolean)
      .join('; '),
  });
  addRow(ctx, {
    scenario: 5,
    what: 'POST /outbound-calls p99 ÷ GET /calls p99, both flat out',
    value: listCalls ? `${ms(r.p99)} vs ${ms(listCalls.p99)}` : ms(r.p99),
    ratio: listCalls ? r.p99 / listCalls.p99 : null,
    target: 'report',
    status: 'info',
  });
}
