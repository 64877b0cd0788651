/**
 * Where the time of the Redis limiter goes: `GET /auth/whoami` on PostgreSQL with the Redis limiter and then the
 * in-memory one (50 connections, the bench's 10,000 keys, 3 s of warm-up then 10 s), and for each the CPU the
 * service, redis-server and the whole machine spent per request. docs/performance.md, the sixteenth section.
 *
 *   DATABASE_URL=postgres://… REDIS_URL=redis://… node bench/probes/limiter-cpu.ts [rounds]
 */
import { execFileSync } from 'node:child_process';
import type { Ctx } from '../lib/context.ts';
import { liveProcessSeconds, machineSeconds } from '../lib/cpu-meter.ts';
import { warmKeys } from '../lib/https-get.ts';
import { resetLimiterWindows } from '../lib/limiter-reset.ts';
import { runLoad } from '../lib/load.ts';
import { parseOptions } from '../lib/options.ts';
import { probeData } from '../lib/probe-data.ts';
import { startService } from '../lib/service.ts';

const rounds = Number(process.argv[2] ?? 1);
const opts = parseOptions(['--backend', 'postgres'], process.env);
if (opts === 'help' || !opts.redisUrl) throw new Error('Set DATABASE_URL and REDIS_URL.');
const { backend, fixture, files } = await probeData('postgres', opts);

const redisPid = Number(execFileSync('pgrep', ['-x', 'redis-server'], { encoding: 'utf8' }).split('\n')[0]);
for (let round = 0; round < rounds; round++) {
  for (const redis of [true, false]) {
    await resetLimiterWindows({ backend, fixture } as Ctx);
    const svc = await startService(backend, { redis });
    try {
      await warmKeys(
        svc.url,
        fixture.main.map((k) => k.key),
      );
      const spec = {
        url: svc.url,
        mode: 'whoami' as const,
        dataFile: files.calls,
        connections: 50,
        threads: 2,
      };
      await runLoad('wrk', { ...spec, seconds: 3 });
      const [s0, r0, m0, t0] = [
        liveProcessSeconds(svc.pid),
        liveProcessSeconds(redisPid),
        machineSeconds(),
        performance.now(),
      ];
      const r = await runLoad('wrk', { ...spec, seconds: 10 });
      const seconds = (performance.now() - t0) / 1000;
      const [s1, r1, m1] = [liveProcessSeconds(svc.pid), liveProcessSeconds(redisPid), machineSeconds()];
      const perRequest = (s: number) => Math.round((s * 1e7) / r.requests) / 10;
      console.log(
        JSON.stringify({
          limiter: redis ? 'redis' : 'memory',
          rps: Math.round(r.rps),
          p50Ms: r.p50,
          serviceCores: Math.round(((s1 - s0) / seconds) * 100) / 100,
          redisCores: Math.round(((r1 - r0) / seconds) * 100) / 100,
          machineCores: Math.round(((m1 - m0) / seconds) * 100) / 100,
          serviceUsPerRequest: perRequest(s1 - s0),
          redisUsPerRequest: perRequest(r1 - r0),
        }),
      );
    } finally {
      await svc.stop();
    }
  }
}
