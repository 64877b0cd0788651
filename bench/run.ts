/**
 * `npm run bench [-- --quick] [--scenario N] [--backend NAME] [--tool NAME]`: every benchmark scenario
 * on the embedded default and, with DATABASE_URL (and REDIS_URL), on PostgreSQL (and Redis). Prints one
 * table and writes a JSON report to bench/results/. See docs/performance.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt } from '../scripts/build.ts';
import { adminQuery, benchTls, makeBackend } from './lib/backend.ts';
import { agreementTable } from './lib/compare.ts';
import type { Ctx } from './lib/context.ts';
import { ensureDataset, forgetOutboundCalls } from './lib/dataset.ts';
import { resetLimiterWindows } from './lib/limiter-reset.ts';
import { findWrk } from './lib/load.ts';
import { writeLoadFiles } from './lib/load-data.ts';
import { type BenchOptions, parseOptions, SCENARIOS, USAGE } from './lib/options.ts';
import { RESULTS_DIR } from './lib/paths.ts';
import {
  compactTable,
  machineLine,
  markdownTable,
  newReport,
  profileTables,
  type Report,
} from './lib/report.ts';
import { startService } from './lib/service.ts';
import { profileListCalls } from './scenarios/profile.ts';
import {
  type ListCallsFigures,
  listCalls,
  listCallsFloor,
  listCallsRows,
  startServiceTimed,
} from './scenarios/s1-list-calls.ts';
import { authRows, whoamiRounds } from './scenarios/s2-auth.ts';
import { revocationVisibility } from './scenarios/s2-revocation.ts';
import { pagination } from './scenarios/s3-pagination.ts';
import { webhooks } from './scenarios/s4-webhooks.ts';
import { outbound } from './scenarios/s5-outbound.ts';
import { embeddedRows } from './scenarios/s6-embedded.ts';
import { exportCalls } from './scenarios/s8-export.ts';

const began = performance.now();
const log = (line: string) =>
  process.stderr.write(`[${((performance.now() - began) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);

async function runBackend(
  opts: BenchOptions,
  report: Report,
  name: 'embedded' | 'postgres',
  tls: Awaited<ReturnType<typeof benchTls>>,
) {
  const has = (n: number) => opts.scenarios.has(n);
  const backend = makeBackend(name, opts, tls);
  log(`${backend.label}`);
  const fixture = await ensureDataset(backend, opts.sizes, { reseed: opts.reseed, log });
  const forget = async () => {
    const removed = await forgetOutboundCalls(backend, fixture);
    if (removed > 0) log(`  removed ${removed} outbound calls left by scenario 5`);
  };
  // A data set cached before scenario 5 cleaned up after itself may still hold its calls.
  await forget();
  const primary = name === (opts.backends.includes('postgres') ? 'postgres' : 'embedded');
  const ctx: Ctx = {
    opts,
    sizes: opts.sizes,
    tool: report.loadTool,
    report,
    log,
    backend,
    fixture,
    files: writeLoadFiles(name, fixture),
    primary,
  };
  const version = backend.databaseUrl
    ? String((await adminQuery(backend.databaseUrl, 'show server_version')).rows[0]?.server_version ?? '')
    : undefined;
  report.backends.push({
    name,
    label: backend.label,
    datasetSeconds: fixture.seededSeconds,
    ...(version ? { postgresVersion: version } : {}),
  });

  // Each service run sits right next to its floor, because the machine's load drifts from minute to minute.
  // (PGlite allows one process on its folder, so a floor and the service never run side by side.)
  let s1: ListCallsFigures | null = null;
  if (has(1) || has(7)) {
    log('scenario 1: GET /calls (and 7: start, memory)');
    const svc = await startServiceTimed(ctx);
    try {
      s1 = await listCalls(ctx, svc);
    } finally {
      await svc.stop();
    }
    listCallsRows(ctx, s1, has(1) ? await listCallsFloor(ctx, s1.half.median.rate ?? 1) : null);
  }
  if (has(2)) {
    const limiter = backend.redisUrl ? 'Redis' : 'in-memory';
    log(`scenario 2: GET /auth/whoami, ${limiter} limiter, beside Fastify alone and the hello floor`);
    const byDefault = await whoamiRounds(
      ctx,
      `${limiter} limiter`,
      (body) => withService(ctx, {}, body),
      // Another process can change keys only beside PostgreSQL; PGlite's one process empties its own cache.
      backend.databaseUrl
        ? async (url) => {
            log('scenario 2: revocation visibility');
            await revocationVisibility(ctx, url);
          }
        : undefined,
    );
    if (backend.redisUrl) {
      log('scenario 2: GET /auth/whoami, in-memory limiter, beside Fastify alone and the hello floor');
      const memory = await whoamiRounds(ctx, 'in-memory limiter', (body) =>
        withService(ctx, { redis: false }, body),
      );
      authRows(ctx, { memory, redis: byDefault });
    } else authRows(ctx, { memory: byDefault });
  }
  if (has(3) || has(5)) {
    await withService(ctx, {}, async (url) => {
      if (has(3)) {
        log('scenario 3: pagination depth');
        await pagination(ctx, url);
      }
      if (has(5)) {
        log('scenario 5: POST /outbound-calls');
        await outbound(ctx, url);
      }
    });
    if (has(5)) await forget();
  }
  if (has(4)) {
    log('scenario 4: webhook fan-out');
    await webhooks(ctx);
  }
  if (has(8)) {
    log('scenario 8: GET /calls/export');
    await resetLimiterWindows(ctx);
    const svc = await startService(ctx.backend, {});
    try {
      await exportCalls(ctx, svc);
    } finally {
      await svc.stop();
    }
  }
  if (has(1) && primary) {
    log('profile of scenario 1');
    report.profile = await profileListCalls(ctx);
  }
}

/** Runs `body` against a freshly started service (limiter windows of the bench keys cleared first). */
async function withService<T>(
  ctx: Ctx,
  opts: { redis?: boolean },
  body: (url: string) => Promise<T>,
): Promise<T> {
  await resetLimiterWindows(ctx);
  const svc = await startService(ctx.backend, opts);
  try {
    return await body(svc.url);
  } finally {
    await svc.stop();
  }
}

async function main() {
  const parsed = parseOptions(process.argv.slice(2), process.env);
  if (parsed === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const opts = parsed;
  if (opts.compare) {
    const read = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Report;
    const [full, quick] = opts.compare;
    process.stdout.write(`${agreementTable(read(full), read(quick))}\n`);
    return;
  }
  if (opts.render) {
    const saved = JSON.parse(fs.readFileSync(opts.render, 'utf8')) as Report;
    process.stdout.write(
      `${machineLine(saved)}\n\n${compactTable(saved)}\n\n${markdownTable(saved)}\n\n${profileTables(saved.profile)}\n`,
    );
    return;
  }
  const tool = opts.tool ?? (findWrk() ? 'wrk' : 'autocannon');
  if (tool === 'wrk' && !findWrk())
    throw new Error('wrk is not installed (apt-get install wrk), or use --tool autocannon');
  if (!opts.tool && tool === 'autocannon') log('wrk not found: using autocannon (figures say so)');
  const report = newReport(opts.sizes, tool);
  await ensureBuilt();
  const tls = await benchTls();
  log(
    `${opts.sizes.label} run: scenarios ${[...opts.scenarios].join(', ')} on ${opts.backends.join(' and ')}, load tool ${tool}`,
  );
  for (const name of opts.backends) await runBackend(opts, report, name, tls);
  if (opts.scenarios.has(6)) embeddedRows(report);
  report.rows.sort((a, b) => a.scenario - b.scenario);
  report.machine.loadAverageAtEnd = os.loadavg().map((l) => Math.round(l * 100) / 100);
  report.durationSeconds = Math.round((performance.now() - began) / 1000);

  const table = markdownTable(report);
  process.stdout.write(`\n${machineLine(report)}\n\n${table}\n`);
  if (report.profile && typeof report.profile === 'object' && 'groups' in report.profile) {
    const p = report.profile as { groups: { group: string; share: number }[] };
    process.stdout.write(
      `\nCPU profile of scenario 1 (self time, busy share): ${p.groups
        .slice(0, 8)
        .map((g) => `${g.group} ${(g.share * 100).toFixed(1)}%`)
        .join('; ')}\n`,
    );
  }
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const json = `${JSON.stringify(report, null, 2)}\n`;
  const stamp = report.date.replace(/[:.]/g, '-');
  const files = [path.join(RESULTS_DIR, `${stamp}-${report.mode}.json`)];
  const complete = opts.scenarios.size === SCENARIOS;
  if (complete)
    files.push(path.join(RESULTS_DIR, report.mode === 'full' ? 'latest.json' : 'latest-quick.json'));
  if (opts.out) files.push(path.resolve(opts.out));
  for (const f of files) fs.writeFileSync(f, json);
  process.stdout.write(
    `\nReport: ${files.map((f) => path.relative(process.cwd(), f)).join(', ')} (${report.durationSeconds} s)\n`,
  );
}

await main();
