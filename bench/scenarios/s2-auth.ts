import { addRaw, addRow, CONNECTIONS, type Ctx, THREADS } from '../lib/context.ts';
import { warmKeys } from '../lib/https-get.ts';
import { type LoadResult, runLoad } from '../lib/load.ts';
import type { LoadSpec } from '../lib/load-spec.ts';
import { judge, ms, rps, validity } from '../lib/report.ts';
import { startFloor } from '../lib/service.ts';

const spec = (ctx: Ctx, url: string, seconds: number): LoadSpec => ({
  url,
  mode: 'whoami',
  dataFile: ctx.files.calls,
  connections: CONNECTIONS,
  threads: THREADS,
  seconds,
});

/**
 * GET /auth/whoami with 10,000 rotating keys: authentication (one indexed lookup) and both windows. Every key is used
 * once first (`warmKeys`), as in scenario 1, so the measured seconds find them held in memory: without it a quick
 * run (one second of warm-up) read half of a full run's rate in the same hour (14,282 against 28,428 req/s in
 * memory); with it, 29,112 against 29,979.
 */
export async function whoami(ctx: Ctx, url: string): Promise<LoadResult> {
  await warmKeys(
    url,
    ctx.fixture.main.map((k) => k.key),
  );
  await runLoad(ctx.tool, spec(ctx, url, ctx.sizes.warmupSeconds));
  const r = await runLoad(ctx.tool, spec(ctx, url, ctx.sizes.loadSeconds));
  ctx.log(`  whoami: ${rps(r)}, p99 ${ms(r.p99)}`);
  return r;
}

async function floorLoad(ctx: Ctx, name: string, label: string): Promise<LoadResult> {
  const f = await startFloor(ctx.backend, name);
  try {
    await runLoad(ctx.tool, spec(ctx, f.url, ctx.sizes.warmupSeconds));
    const r = await runLoad(ctx.tool, spec(ctx, f.url, ctx.sizes.loadSeconds));
    ctx.log(`  ${label}: ${rps(r)}, p99 ${ms(r.p99)}`);
    return r;
  } finally {
    await f.stop();
  }
}

/** The floor of scenario 2: bench/floors/hello-floor.ts with the same script (its keys are ignored). */
export const helloFloor = (ctx: Ctx) => floorLoad(ctx, 'hello-floor', 'hello floor');

/** For the report: the framework alone with the whoami response's shape (bench/floors/framework-floor.ts). */
export const frameworkFloor = (ctx: Ctx) => floorLoad(ctx, 'framework-floor', 'framework floor');

export function authRows(
  ctx: Ctx,
  floor: LoadResult,
  runs: { memory?: LoadResult; redis?: LoadResult },
  framework: LoadResult,
) {
  addRaw(ctx, 's2', { floor, framework, ...runs });
  addRow(ctx, {
    scenario: 2,
    what: 'Fastify alone, whoami-shaped answer (same headers and hooks, no key, no limiter) ÷ bare node:https hello',
    value: `${rps(framework)} vs ${rps(floor)}`,
    ratio: framework.rps / floor.rps,
    target: 'report',
    status: 'info',
    note: [validity(framework), validity(floor)].filter(Boolean).join('; '),
  });
  // The embedded default is held to 0.5: its database runs in the service's own process and event loop.
  const memoryTarget = ctx.backend.name === 'embedded' ? 0.5 : 0.6;
  for (const [limiter, r, target] of [
    ['in-memory', runs.memory, memoryTarget],
    ['Redis', runs.redis, 0.4],
  ] as const) {
    if (!r) continue;
    const ratio = r.rps / floor.rps;
    addRow(ctx, {
      scenario: 2,
      what: `GET /auth/whoami, ${limiter} limiter ÷ bare node:https hello`,
      value: `${rps(r)} vs ${rps(floor)}`,
      ratio,
      target: `≥ ${target}`,
      status: judge(ratio >= target),
      note: [validity(r), validity(floor)].filter(Boolean).join('; '),
    });
  }
}
