/**
 * What the API process's memory holds under scenario 1: GET /calls on the bench's data set (50 connections, every key
 * warmed, 3 s of warm-up, then `seconds` of load) while the probe samples, every 250 ms, the process's RSS from
 * `/proc` (anonymous and file-backed) and V8's heap from the service's own `/metrics` (used, committed, external).
 * Prints the samples at the RSS peak and the peak of each; with `--snapshot` the service writes a heap snapshot
 * (`--heapsnapshot-signal`) at the end of the load, into the service's working folder. docs/performance.md,
 * the seventeenth section.
 *
 *   [DATABASE_URL=postgres://…] node bench/probes/memory.ts [--quick] [--seconds 20] [--snapshot] [-- node flags…]
 */
import { type Ctx, listCallsLoad } from '../lib/context.ts';
import { httpsGet, warmKeys } from '../lib/https-get.ts';
import { resetLimiterWindows } from '../lib/limiter-reset.ts';
import { runLoad } from '../lib/load.ts';
import { parseOptions } from '../lib/options.ts';
import { probeData } from '../lib/probe-data.ts';
import { memoryOf, sleep } from '../lib/proc.ts';
import { startService } from '../lib/service.ts';

const args = process.argv.slice(2);
const dashes = args.indexOf('--');
const nodeArgs = dashes >= 0 ? args.slice(dashes + 1) : [];
const own = dashes >= 0 ? args.slice(0, dashes) : args;
const seconds = Number(own[own.indexOf('--seconds') + 1] ?? 20) || 20;
const snapshot = own.includes('--snapshot');
/** `--promoted`: only what outlived the young generation (objects a minor collection freed are left out). */
const promoted = own.includes('--promoted');
const allocations = own.includes('--allocations') || promoted;
const INSPECTOR_PORT = 9239;
const backendName = process.env.DATABASE_URL ? 'postgres' : 'embedded';
const opts = parseOptions(
  ['--backend', backendName, ...(own.includes('--quick') ? ['--quick'] : [])],
  process.env,
);
if (opts === 'help') throw new Error('no help');
const { backend, fixture, files } = await probeData(backendName, opts, (m) => console.error(m));

const MB = 1024 * 1024;
type Sample = {
  rssMb: number;
  anonMb: number;
  fileMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
};

async function processMemory(pid: number) {
  const m = await memoryOf(pid);
  if (!m) throw new Error(`process ${pid} is gone`);
  return { rssMb: m.rss / MB, anonMb: m.anon / MB, fileMb: m.file / MB };
}

/** V8's figures for the service's main thread, from prom-client's default metrics. */
async function heapOf(url: string) {
  // A kept-alive connection the service closed meanwhile fails the request; the next sample opens another.
  const text = await httpsGet(`${url}/metrics`, '').then(
    (res) => res.body,
    () => '',
  );
  const value = (name: string) =>
    Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN) / MB;
  return {
    heapUsedMb: value('nodejs_heap_size_used_bytes'),
    heapTotalMb: value('nodejs_heap_size_total_bytes'),
    externalMb: value('nodejs_external_memory_bytes'),
  };
}

await resetLimiterWindows({ backend, fixture } as Ctx);
const svc = await startService(backend, {
  nodeArgs: [
    ...nodeArgs,
    ...(snapshot ? ['--heapsnapshot-signal=SIGUSR2'] : []),
    ...(allocations ? [`--inspect=127.0.0.1:${INSPECTOR_PORT}`] : []),
  ],
});
try {
  const afterStart = { ...(await processMemory(svc.pid)), ...(await heapOf(svc.url)) };
  await warmKeys(
    svc.url,
    fixture.main.map((k) => k.key),
  );
  const spec = listCallsLoad(svc.url, files, 3);
  await runLoad('wrk', spec);
  const samples: Sample[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      samples.push({ ...(await processMemory(svc.pid)), ...(await heapOf(svc.url)) });
      await sleep(250);
    }
  })();
  const inspector = allocations ? await openInspector() : null;
  await inspector?.send('HeapProfiler.startSampling', {
    samplingInterval: 32_768,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: !promoted,
  });
  const load = await runLoad('wrk', { ...spec, seconds });
  const profile = (await inspector?.send('HeapProfiler.stopSampling')) as
    | { profile: { head: AllocationNode } }
    | undefined;
  inspector?.close();
  sampling = false;
  await sampler;
  if (profile) printAllocations(profile.profile.head, load.requests);
  if (snapshot) {
    process.kill(svc.pid, 'SIGUSR2');
    await sleep(30_000);
  }
  const round = (s: Sample) =>
    Object.fromEntries(Object.entries(s).map(([k, v]) => [k, Math.round(v * 10) / 10]));
  const atPeak = samples.reduce((a, b) => (b.rssMb > a.rssMb ? b : a));
  const peak = (k: keyof Sample) => Math.round(Math.max(...samples.map((s) => s[k])) * 10) / 10;
  console.log(
    JSON.stringify(
      {
        backend: backendName,
        nodeArgs,
        rps: Math.round(load.rps),
        p99Ms: load.p99,
        afterStart: round(afterStart),
        atRssPeak: round(atPeak),
        peaks: {
          rssMb: peak('rssMb'),
          heapUsedMb: peak('heapUsedMb'),
          heapTotalMb: peak('heapTotalMb'),
          externalMb: peak('externalMb'),
        },
        samples: samples.length,
      },
      null,
      2,
    ),
  );
} finally {
  await svc.stop();
}

type AllocationNode = {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: AllocationNode[];
};

/** A DevTools protocol session with the service's main thread (Node's global WebSocket). */
async function openInspector() {
  const targets = (await (await fetch(`http://127.0.0.1:${INSPECTOR_PORT}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error('no inspector target');
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let next = 1;
  const waiting = new Map<number, (result: unknown) => void>();
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  };
  return {
    send(method: string, params: object = {}): Promise<unknown> {
      const id = next++;
      socket.send(JSON.stringify({ id, method, params }));
      return new Promise((resolve) => waiting.set(id, resolve));
    },
    close: () => socket.close(),
  };
}

/** Bytes allocated per request by each function (self), and by each package or file (self, summed). */
function printAllocations(root: AllocationNode, requests: number) {
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  let total = 0;
  const nameOf = (node: AllocationNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const place =
      /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ??
      (url.split('/').slice(-2).join('/') || '(native)');
    return { place, name: `${functionName || '(anonymous)'} ${place}:${lineNumber + 1}` };
  };
  const walk = (node: AllocationNode, caller = '') => {
    const { place, name: own } = nameOf(node);
    // A native function (a regular expression's exec, a parseFloat) is named with the function that called it.
    const name = place === '(native)' ? `${own} ← ${caller}` : own;
    byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
    byPlace.set(place, (byPlace.get(place) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) walk(child, own);
  };
  walk(root);
  const top = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `${(v / requests / 1024).toFixed(1)} KB  ${k}`);
  console.log(`allocated per request: ${(total / requests / 1024).toFixed(1)} KB (${requests} requests)`);
  console.log(
    ['by function (self):', ...top(byFunction, 25), 'by package or file:', ...top(byPlace, 12)].join('\n'),
  );
}
