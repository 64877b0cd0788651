/**
 * Where a whoami's time goes in the service: `GET /auth/whoami` on PostgreSQL with the Redis limiter (or in memory,
 * `--memory`; 50 connections, the quick data set's 10,000 keys), the service from source under `--cpu-prof`, 3 s of
 * warm-up then 10 s. Prints self time by group and by frame, and the inclusive time of each of the service's own
 * functions and of each package (a hook that hands on to Fastify's chain through `done` carries what follows it).
 * docs/performance.md, the twenty-fifth section.
 *
 *   DATABASE_URL=postgres://… REDIS_URL=redis://… node bench/probes/whoami-profile.ts [--memory]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Ctx } from '../lib/context.ts';
import { warmKeys } from '../lib/https-get.ts';
import { resetLimiterWindows } from '../lib/limiter-reset.ts';
import { runLoad } from '../lib/load.ts';
import { parseOptions } from '../lib/options.ts';
import { probeData } from '../lib/probe-data.ts';
import { findProfile, inclusiveShares, summarizeProfile } from '../lib/profile.ts';
import { startService } from '../lib/service.ts';

const redis = !process.argv.includes('--memory');
const opts = parseOptions(['--backend', 'postgres', '--quick'], process.env);
if (opts === 'help' || !opts.redisUrl) throw new Error('Set DATABASE_URL and REDIS_URL.');
const { backend, fixture, files } = await probeData('postgres', opts);
await resetLimiterWindows({ backend, fixture } as Ctx);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'whoami-prof-'));
const svc = await startService(backend, {
  redis,
  fromSource: true,
  nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-name=service.cpuprofile'],
});
const spec = { url: svc.url, mode: 'whoami' as const, dataFile: files.calls, connections: 50, threads: 2 };
await warmKeys(
  svc.url,
  fixture.main.map((k) => k.key),
);
await runLoad('wrk', { ...spec, seconds: 3 });
const skipMs = performance.now() - svc.spawnedAt;
const r = await runLoad('wrk', { ...spec, seconds: 10 });
await svc.stop();
const file = findProfile(dir);
if (!file) throw new Error('no profile written');
console.log(
  JSON.stringify({ limiter: redis ? 'redis' : 'memory', rps: Math.round(r.rps), requests: r.requests }),
);
const summary = summarizeProfile(file, skipMs, 40);
for (const g of summary.groups.slice(0, 25))
  console.log(`${(g.share * 100).toFixed(1).padStart(5)} %  ${g.group}`);
console.log('---');
for (const f of summary.top) console.log(`${(f.share * 100).toFixed(1).padStart(5)} %  ${f.frame}`);
console.log("--- inclusive, the service's own functions and the packages they call into");
for (const f of inclusiveShares(file, skipMs).slice(0, 45))
  console.log(`${(f.share * 100).toFixed(1).padStart(5)} %  ${f.frame}`);
console.log(`profile: ${file}`);
