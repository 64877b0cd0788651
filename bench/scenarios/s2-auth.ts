import { addRaw, addRow, CONNECTIONS, type Ctx, THREADS } from '../lib/context.ts';
import { warmKeys } from '../lib/https-get.ts';
import { type LoadResult, runLoad } from '../lib/load.ts';
import type { LoadSpec } from '../lib/load-spec.ts';
import { judge, medianBy, ms, rps, validity } from '../lib/report.ts';
import { alternatedRounds } from '../lib/rounds.ts';
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
 * Rounds of the service's whoami beside both floors, each round's order the other way round from the last, each row
 * reading the median round. One run of each, minutes apart, read whatever the machine did in between: a full and a
 * quick run set PostgreSQL's whoami against the hello floor at 0.22 and 0.38 while the floor itself moved from
 * 26,554 to 17,648 req/s (docs/performance.md, the twentieth section).
 */
const ROUNDS = 3;

/** One round: the service's whoami, the framework alone, and the bare hello, each warmed up then measured. */
export type AuthRound = { service: LoadResult; framework: LoadResult; hello: LoadResult };

async function measured(ctx: Ctx, url: string, label: string): Promise<LoadResult> {
  await runLoad(ctx.tool, spec(ctx, url, ctx.sizes.warmupSeconds));
  const r = await runLoad(ctx.tool, spec(ctx, url, ctx.sizes.loadSeconds));
  ctx.log(`  ${label}: ${rps(r)}, p99 ${ms(r.p99)}`);
  return r;
}

async function floorLoad(ctx: Ctx, name: string, label: string): Promise<LoadResult> {
  const f = await startFloor(ctx.backend, name);
  try {
    return await measured(ctx, f.url, label);
  } finally {
    await f.stop();
  }
}

/**
 * GET /auth/whoami with 10,000 rotating keys: authentication (one indexed lookup) and both windows, on a service
 * that `withService` starts for each round (PGlite allows one process on its folder, so the service and a floor
 * never run side by side), against bench/floors/framework-floor.ts (Fastify alone, the same answer and hooks) and
 * bench/floors/hello-floor.ts (a bare node:https hello). Every key is used once first (`warmKeys`), as in scenario
 * 1, so the measured seconds find them held in memory: without it a quick run (one second of warm-up) read half of a
 * full run's rate in the same hour (14,282 against 28,428 req/s in memory); with it, 29,112 against 29,979.
 * `first` runs once, on the first round's service after its whoami (revocation visibility).
 */
export async function whoamiRounds(
  ctx: Ctx,
  label: string,
  withService: <T>(body: (url: string) => Promise<T>) => Promise<T>,
  first?: (url: string) => Promise<void>,
): Promise<AuthRound[]> {
  return alternatedRounds<keyof AuthRound, LoadResult>(ROUNDS, (i) => [
    [
      'service',
      () =>
        withService(async (url) => {
          await warmKeys(
            url,
            ctx.fixture.main.map((k) => k.key),
          );
          const r = await measured(ctx, url, `round ${i + 1}, whoami (${label})`);
          if (i === 0 && first) await first(url);
          return r;
        }),
    ],
    ['framework', () => floorLoad(ctx, 'framework-floor', `round ${i + 1}, framework floor`)],
    ['hello', () => floorLoad(ctx, 'hello-floor', `round ${i + 1}, hello floor`)],
  ]);
}

const validities = (rounds: AuthRound[], pick: (r: AuthRound) => LoadResult[]) =>
  rounds.flatMap((r) => pick(r).map(validity)).filter(Boolean);

export function authRows(ctx: Ctx, runs: { memory?: AuthRound[]; redis?: AuthRound[] }) {
  const all = [...(runs.memory ?? []), ...(runs.redis ?? [])];
  const framework = medianBy(all, (r) => r.framework.rps / r.hello.rps, 'rounds');
  addRow(ctx, {
    scenario: 2,
    what: `Fastify alone, whoami-shaped answer (same headers and hooks, no key, no limiter) ÷ bare node:https hello (median of ${all.length} rounds)`,
    value: `${rps(framework.item.framework)} vs ${rps(framework.item.hello)}`,
    ratio: framework.ratio,
    target: 'report',
    status: 'info',
    note: [framework.note, ...validities(all, (r) => [r.framework, r.hello])].join('; '),
  });
  // Earlier reports' single figures, for scenario 6 and readers of the raw JSON: each from its median round.
  const services: { memory?: LoadResult; redis?: LoadResult } = {};
  // The embedded default is held to 0.5: its database runs in the service's own process and event loop.
  const memoryTarget = ctx.backend.name === 'embedded' ? 0.5 : 0.6;
  for (const [name, limiter, target, overFramework] of [
    ['memory', 'in-memory', memoryTarget, null],
    // Issue 40: the shared limiter's price, against the framework alone.
    ['redis', 'Redis', 0.4, 0.5],
  ] as const) {
    const rounds = runs[name];
    if (!rounds) continue;
    const hello = medianBy(rounds, (r) => r.service.rps / r.hello.rps, 'rounds');
    services[name] = hello.item.service;
    addRow(ctx, {
      scenario: 2,
      what: `GET /auth/whoami, ${limiter} limiter ÷ bare node:https hello (median of ${rounds.length} rounds)`,
      value: `${rps(hello.item.service)} vs ${rps(hello.item.hello)}`,
      ratio: hello.ratio,
      target: `≥ ${target}`,
      status: judge(hello.ratio >= target),
      note: [hello.note, ...validities(rounds, (r) => [r.service, r.hello])].join('; '),
    });
    const fw = medianBy(rounds, (r) => r.service.rps / r.framework.rps, 'rounds');
    addRow(ctx, {
      scenario: 2,
      what: `GET /auth/whoami, ${limiter} limiter ÷ Fastify alone (median of ${rounds.length} rounds)`,
      value: `${rps(fw.item.service)} vs ${rps(fw.item.framework)}`,
      ratio: fw.ratio,
      target: overFramework === null ? 'report' : `≥ ${overFramework}`,
      status: overFramework === null ? 'info' : judge(fw.ratio >= overFramework),
      note: [fw.note, ...validities(rounds, (r) => [r.service, r.framework])].join('; '),
    });
  }
  addRaw(ctx, 's2', {
    floor: framework.item.hello,
    framework: framework.item.framework,
    ...services,
    rounds: runs,
  });
}
