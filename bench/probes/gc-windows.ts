/**
 * What lands in scenario 1's paced windows: the service under `npm start`'s flags (plus any Node flags given after
 * `--`) with `--trace-gc`, on the quick data set; scenario 1's key warm-up, warm-up load and three flat-out runs, then
 * five paced windows at half the median rate (or at `PACED_RATE`). For each window: when it ran (ms after spawn), its
 * p99 and p50, and each isolate's collections in it (count, longest pause, sum). The PGlite thread is an isolate of
 * its own. docs/performance.md, the twenty-fifth section.
 *
 *   [PACED_RATE=750] node bench/probes/gc-windows.ts [--postgres] [NAME=value …] [-- node flags]
 *
 * `NAME=value` words are set in the service's environment.
 */
import { type Ctx, listCallsLoad } from '../lib/context.ts';
import { warmKeys } from '../lib/https-get.ts';
import { resetLimiterWindows } from '../lib/limiter-reset.ts';
import { runLoad } from '../lib/load.ts';
import { parseOptions } from '../lib/options.ts';
import { probeData } from '../lib/probe-data.ts';
import { medianBy } from '../lib/report.ts';
import { startService } from '../lib/service.ts';

const dash = process.argv.indexOf('--');
const args = dash >= 0 ? process.argv.slice(2, dash) : process.argv.slice(2);
const nodeFlags = dash >= 0 ? process.argv.slice(dash + 1) : [];
const env = Object.fromEntries(
  args.filter((a) => /^[A-Z_]+=/.test(a)).map((a) => a.split('=', 2) as [string, string]),
);
const name = args.includes('--postgres') ? 'postgres' : 'embedded';
const opts = parseOptions(['--backend', name, '--quick'], process.env);
if (opts === 'help') throw new Error('bad options');
const { backend, fixture, files } = await probeData(name, opts);
await resetLimiterWindows({ backend, fixture } as Ctx);
const svc = await startService(backend, { nodeArgs: ['--trace-gc', ...nodeFlags], env });

type Gc = { at: number; isolate: string; major: boolean; pauseMs: number };
const gcs: Gc[] = [];
let partial = '';
svc.child.stdout?.on('data', (chunk: Buffer) => {
  const at = performance.now();
  const lines = (partial + chunk.toString()).split('\n');
  partial = lines.pop() ?? '';
  for (const line of lines) {
    // `[pid:0xISOLATE]   N ms: Scavenge 40.1 (52.3) -> 38.2 (52.3) MB, pooled: 0 MB, 1.23 / 0.00 ms …`
    const m =
      /^\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: (\S+).*? MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms/.exec(
        line,
      );
    if (m) gcs.push({ at, isolate: m[1] ?? '', major: m[2] === 'Mark-Compact', pauseMs: Number(m[3]) });
  }
});

const spec = listCallsLoad(svc.url, files, opts.sizes.loadSeconds);
await warmKeys(
  svc.url,
  fixture.main.map((k) => k.key),
);
await runLoad('wrk', { ...spec, seconds: opts.sizes.warmupSeconds });
const flat = [];
for (let i = 0; i < 3; i++) flat.push(await runLoad('wrk', { ...spec, seconds: opts.sizes.loadSeconds }));
const medianRps = medianBy(flat, (r) => r.rps, 'runs').ratio;
const rate = Number(process.env.PACED_RATE ?? 0) || Math.round(medianRps / 2);
const windows = [];
for (let i = 0; i < 5; i++) {
  const from = performance.now();
  const r = await runLoad('wrk', { ...spec, seconds: opts.sizes.pacedSeconds, rate });
  windows.push({ from, to: performance.now(), p99: r.p99, p50: r.p50 });
}
await svc.stop();

console.log(
  JSON.stringify({ backend: name, env, nodeFlags, flat: flat.map((f) => Math.round(f.rps)), rate }),
);
const isolates = [...new Set(gcs.map((g) => g.isolate))];
const sum = (xs: Gc[]) => xs.reduce((s, g) => s + g.pauseMs, 0).toFixed(1);
const max = (xs: Gc[]) => Math.max(0, ...xs.map((g) => g.pauseMs)).toFixed(1);
for (const w of windows) {
  const parts = isolates.map((iso) => {
    const inWindow = gcs.filter((g) => g.isolate === iso && g.at >= w.from && g.at <= w.to);
    const major = inWindow.filter((g) => g.major);
    const minor = inWindow.filter((g) => !g.major);
    return `${iso}: major ${major.length} (max ${max(major)}, sum ${sum(major)} ms), minor ${minor.length} (max ${max(minor)}, sum ${sum(minor)} ms)`;
  });
  const when = `${Math.round(w.from - svc.spawnedAt)}–${Math.round(w.to - svc.spawnedAt)} ms`;
  console.log(`window ${when}: p99 ${w.p99.toFixed(1)} ms, p50 ${w.p50.toFixed(2)} | ${parts.join(' | ')}`);
}
