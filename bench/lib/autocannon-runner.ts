/**
 * The autocannon fallback (when wrk is not installed), run as its own process so the load generator
 * never shares an event loop with the bench. Builds the same requests as bench/lib/wrk-script.ts.
 * Usage: node bench/lib/autocannon-runner.ts '<LoadSpec as JSON>'; prints `BENCH_RESULT {…}`.
 */
import fs from 'node:fs';
import autocannon from 'autocannon';
import type { LoadResult } from './load.ts';
import type { LoadSpec } from './load-spec.ts';

const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
const lines = (file: string | undefined) =>
  file
    ? fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(/\s+/))
    : [];
const data = lines(spec.dataFile);
const windows = lines(spec.windowsFile);
let counter = 0;

function next(): { method: 'GET' | 'POST'; path: string; headers: Record<string, string>; body?: string } {
  counter += 1;
  const f = data[(counter * 7919) % data.length] ?? [];
  const headers: Record<string, string> = { authorization: `Bearer ${f[0] ?? ''}` };
  if (spec.mode === 'whoami') return { method: 'GET', path: '/api/v1/auth/whoami', headers };
  if (spec.mode === 'fixed') return { method: 'GET', path: spec.path ?? '/', headers };
  if (spec.mode === 'calls') {
    const k = counter % 6;
    let p = '/api/v1/calls?limit=25';
    if (k === 1) p += '&direction=inbound';
    else if (k === 2) p += '&direction=outbound';
    else if (k === 3) p += `&assistant_id=${f[1 + (counter % (f.length - 1))]}`;
    else if (k === 4) {
      const w = windows[counter % windows.length] ?? [];
      p += `&from=${w[0]}&to=${w[1]}`;
    } else if (k === 5) p += `&assistant_id=${f[1]}&direction=outbound`;
    return { method: 'GET', path: p, headers };
  }
  const id = `${spec.runId ?? 'bench'}-ac-${counter}`;
  headers['content-type'] = 'application/json';
  headers['idempotency-key'] = id;
  const to = `+1415555${String(counter % 10000).padStart(4, '0')}`;
  return {
    method: 'POST',
    path: '/api/v1/outbound-calls',
    headers,
    body: JSON.stringify({ assistant_id: f[1], to_number: to, external_id: id }),
  };
}

const result = await autocannon({
  url: spec.url,
  connections: spec.connections,
  duration: spec.seconds,
  timeout: 10,
  ...(spec.rate ? { overallRate: spec.rate } : {}),
  requests: [{ setupRequest: (req) => ({ ...req, ...next() }) }],
});
const out: LoadResult = {
  tool: 'autocannon',
  requests: result.requests.total,
  seconds: result.duration,
  rps: result.requests.total / result.duration,
  p50: result.latency.p50,
  p90: result.latency.p90,
  p99: result.latency.p99,
  max: result.latency.max,
  mean: result.latency.average,
  non2xx: result.non2xx,
  errors: result.errors + result.timeouts,
  connections: spec.connections,
  rate: spec.rate ?? null,
};
process.stdout.write(`BENCH_RESULT ${JSON.stringify(out)}\n`);
