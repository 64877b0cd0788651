/**
 * `npm run soak [-- --minutes 10 --rate 30]`: a steady mixed load on one real `serve` process (reads,
 * outbound calls, and the webhook fan-out their lifecycle causes) for N minutes. Every 10 s it samples the
 * error rate, latency (p50/p99) and the server's memory (RSS); at the end it prints the table, writes
 * reliability/results/soak.json, and fails when errors exceed 0.1 % or memory keeps growing.
 *
 * Storage: PostgreSQL (and Redis) when DATABASE_URL (REDIS_URL) are set, else the embedded PGlite in a
 * temporary folder. Loopback only.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/database.ts';
import { type Receiver, startReceiver } from '../src/testing/receiver.ts';
import { percentile, serviceClient, sleep } from './lib/client.ts';
import { RESULTS_DIR } from './lib/collector.ts';
import { SERVER_SECRET } from './lib/env.ts';
import { childTls, startService } from './lib/service-process.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    rate: { type: 'string', default: '30' },
    customers: { type: 'string', default: '6' },
  },
});
const MINUTES = Math.min(120, Math.max(0.5, Number(values.minutes)));
const RATE = Math.min(500, Math.max(1, Number(values.rate)));
const CUSTOMERS = Math.min(50, Math.max(1, Number(values.customers)));
const SAMPLE_SECONDS = 10;
const MAX_IN_FLIGHT = 64;
const REPO = path.resolve(import.meta.dirname, '..');

const dataDir = mkdtempSync(path.join(tmpdir(), 'soak-'));

// On PostgreSQL the soak works in a schema of its own, dropped at the end, like the test suites.
const schema = `soak_${process.pid}_${randomBytes(3).toString('hex')}`;
let databaseUrl: string | undefined;
if (process.env.DATABASE_URL) {
  const admin = await openDatabase({ url: process.env.DATABASE_URL, poolSize: 1 });
  await sql.raw(`create schema ${schema}`).execute(admin.db);
  await admin.close();
  const u = new URL(process.env.DATABASE_URL);
  u.searchParams.set('options', `-c search_path=${schema}`);
  databaseUrl = u.toString();
}
async function dropSchema() {
  if (!process.env.DATABASE_URL) return;
  const admin = await openDatabase({ url: process.env.DATABASE_URL, poolSize: 1 });
  await sql.raw(`drop schema if exists ${schema} cascade`).execute(admin.db);
  await admin.close();
}
process.once('SIGINT', () => {
  void dropSchema().finally(() => process.exit(130));
});
const baseEnv: Record<string, string> = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  DATA_DIR: dataDir,
  SERVER_SECRET,
  DEMO_SEED: 'false',
  KEY_RATE_LIMIT_PER_MINUTE: '600',
  LOG_LEVEL: 'warn',
  ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
};

// Customers, assistants, keys and a history of calls, made inside the database by the seed command.
const keysFile = path.join(dataDir, 'keys.json');
const seeded = spawnSync(
  process.execPath,
  [
    'src/main.ts',
    'seed',
    '--customers',
    String(CUSTOMERS),
    '--assistants-per-customer',
    '2',
    '--calls',
    String(CUSTOMERS * 500),
    '--keys-per-customer',
    '1',
    '--rate-limit',
    '600',
    '--keys-file',
    keysFile,
  ],
  { cwd: REPO, env: baseEnv, encoding: 'utf8' },
);
if (seeded.status !== 0) {
  await dropSchema();
  throw new Error(`seed failed: ${seeded.stderr}`);
}
const keys = (JSON.parse(readFileSync(keysFile, 'utf8')) as { customer_id: string; secret: string }[]).map(
  (k) => k.secret,
);

const api = await startService({
  command: 'serve',
  name: 'soak-api',
  env: {
    ...baseEnv,
    // Transcripts settle sooner than the default 15 s, so call.transcript.ready fans out within the run.
    PROVIDER_SETTLE_SECONDS: '5',
    WEBHOOK_TIMEOUT_MS: '5000',
  },
});
if (!api.url) throw new Error('no URL');
const client = serviceClient(api.url, (await childTls()).cert);
const receivers: Receiver[] = [await startReceiver(), await startReceiver()];

// Every customer subscribes both receivers to every event: the fan-out of its calls' lifecycle.
const assistants = new Map<string, string[]>();
for (const key of keys) {
  for (const r of receivers) {
    const res = await client.send('POST', '/api/v1/webhook-subscriptions', {
      key,
      body: { url: r.url, events: ['call.completed', 'call.insight.received', 'call.transcript.ready'] },
    });
    if (res.status !== 201) throw new Error(`subscribe: ${res.status} ${res.text}`);
  }
  const list = await client.send('GET', '/api/v1/assistants?limit=10', { key });
  assistants.set(
    key,
    ((list.body as { data: { id: string }[] }).data ?? []).map((a) => a.id),
  );
}

type Op = { name: string; method: string; path: string; body?: unknown };
const callIds = new Map<string, string[]>();
function nextOp(key: string, i: number): Op {
  const roll = i % 20;
  const mine = assistants.get(key) ?? [];
  if (roll < 2 && mine.length > 0)
    return {
      name: 'POST /outbound-calls',
      method: 'POST',
      path: '/api/v1/outbound-calls',
      body: { assistant_id: mine[i % mine.length], to_number: '+14155550199', external_id: `soak-${i}` },
    };
  if (roll < 8) return { name: 'GET /calls', method: 'GET', path: '/api/v1/calls?limit=25' };
  if (roll < 11) {
    const ids = callIds.get(key) ?? [];
    const id = ids[i % Math.max(1, ids.length)];
    if (id) return { name: 'GET /calls/{id}', method: 'GET', path: `/api/v1/calls/${id}` };
  }
  if (roll < 14) return { name: 'GET /assistants', method: 'GET', path: '/api/v1/assistants' };
  if (roll < 16)
    return { name: 'GET /webhook-events', method: 'GET', path: '/api/v1/webhook-events?limit=10' };
  return { name: 'GET /auth/whoami', method: 'GET', path: '/api/v1/auth/whoami' };
}

type Window = {
  t: number;
  requests: number;
  errors: number;
  latencies: number[];
  byStatus: Map<number, number>;
};
const fresh = (): Window => ({ t: 0, requests: 0, errors: 0, latencies: [], byStatus: new Map() });
let window = fresh();
const samples: {
  minute: number;
  requests: number;
  error_rate: number;
  p50_ms: number;
  p99_ms: number;
  rss_mb: number;
  webhooks_received: number;
  statuses: string;
}[] = [];
const all: number[] = [];
let total = 0;
let errors = 0;
let inFlight = 0;
let i = 0;

const rssMb = () => {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${api.pid}/status`, 'utf8'));
    return m?.[1] ? Math.round(Number(m[1]) / 1024) : 0;
  } catch {
    return 0;
  }
};

const started = Date.now();
const endAt = started + MINUTES * 60_000;
let nextSample = started + SAMPLE_SECONDS * 1000;
process.stdout.write(
  `soak: ${MINUTES} min at ${RATE} req/s against ${api.url} (${baseEnv.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})\n`,
);
while (Date.now() < endAt) {
  const tickStart = Date.now();
  for (let n = 0; n < RATE / 10 && inFlight < MAX_IN_FLIGHT; n++) {
    const key = keys[i % keys.length] ?? '';
    const op = nextOp(key, Math.floor(i / keys.length));
    i += 1;
    inFlight += 1;
    void client
      .send(op.method, op.path, { key, ...(op.body !== undefined ? { body: op.body } : {}), boundMs: 30_000 })
      .then((res) => {
        inFlight -= 1;
        total += 1;
        window.requests += 1;
        window.latencies.push(res.ms);
        all.push(res.ms);
        window.byStatus.set(res.status, (window.byStatus.get(res.status) ?? 0) + 1);
        // Errors: no answer, any 5xx, and a 4xx this load never provokes on purpose (402: a spent cap is expected).
        const bad = res.status === 0 || res.status >= 500 || (res.status >= 400 && res.status !== 402);
        if (bad) {
          errors += 1;
          window.errors += 1;
        }
        if (op.name === 'POST /outbound-calls' && res.status === 201) {
          const list = callIds.get(key) ?? [];
          list.push(String((res.body as { id: string }).id));
          if (list.length > 200) list.shift();
          callIds.set(key, list);
        }
      });
  }
  if (Date.now() >= nextSample) {
    nextSample += SAMPLE_SECONDS * 1000;
    const s = {
      minute: Math.round(((Date.now() - started) / 60_000) * 100) / 100,
      requests: window.requests,
      error_rate: window.requests ? window.errors / window.requests : 0,
      p50_ms: percentile(window.latencies, 50),
      p99_ms: percentile(window.latencies, 99),
      rss_mb: rssMb(),
      webhooks_received: receivers.reduce((n, r) => n + r.received.length, 0),
      statuses: [...window.byStatus].map(([k, v]) => `${k}×${v}`).join(' '),
    };
    samples.push(s);
    process.stdout.write(
      `${String(s.minute).padStart(6)} min  ${String(s.requests).padStart(5)} req  err ${(s.error_rate * 100).toFixed(2)}%  p50 ${s.p50_ms} ms  p99 ${s.p99_ms} ms  rss ${s.rss_mb} MB  webhooks ${s.webhooks_received}  [${s.statuses}]\n`,
    );
    window = fresh();
  }
  await sleep(Math.max(0, 100 - (Date.now() - tickStart)));
}
for (let w = 0; w < 300 && inFlight > 0; w++) await sleep(100);

// Memory: after the first fifth (warm-up), fit a line to RSS; growth must level off, not climb steadily.
const steady = samples.slice(Math.floor(samples.length / 5));
const n = steady.length;
const xs = steady.map((s) => s.minute);
const ys = steady.map((s) => s.rss_mb);
const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / Math.max(1, a.length);
const mx = mean(xs);
const my = mean(ys);
const slope =
  n > 1
    ? xs.reduce((acc, x, k) => acc + (x - mx) * ((ys[k] ?? 0) - my), 0) /
      xs.reduce((acc, x) => acc + (x - mx) ** 2, 0)
    : 0;
const firstHalf = mean(ys.slice(0, Math.floor(n / 2)));
const secondHalf = mean(ys.slice(Math.floor(n / 2)));
// Bounded: under 2 MB per minute of trend, or the second half of the run no higher than the first plus 10 %.
const memoryOk = slope < 2 || secondHalf <= firstHalf * 1.1;
const errorRate = total ? errors / total : 0;
const result = {
  generated_at: new Date().toISOString(),
  minutes: MINUTES,
  target_rate_per_second: RATE,
  database: baseEnv.DATABASE_URL ? 'PostgreSQL' : 'PGlite',
  redis: Boolean(baseEnv.REDIS_URL),
  requests: total,
  errors,
  error_rate: errorRate,
  p50_ms: percentile(all, 50),
  p99_ms: percentile(all, 99),
  webhooks_received: receivers.reduce((s, r) => s + r.received.length, 0),
  rss_mb: { first: samples[0]?.rss_mb ?? 0, max: Math.max(0, ...ys), last: samples.at(-1)?.rss_mb ?? 0 },
  rss_trend_mb_per_minute: Math.round(slope * 100) / 100,
  memory_bounded: memoryOk,
  samples,
};
writeFileSync(path.join(RESULTS_DIR, 'soak.json'), `${JSON.stringify(result, null, 2)}\n`);
spawnSync(
  path.join(REPO, 'node_modules/.bin/biome'),
  ['format', '--write', path.join(RESULTS_DIR, 'soak.json')],
  {
    cwd: REPO,
    stdio: 'ignore',
  },
);
process.stdout.write(
  [
    '',
    `requests ${total}, errors ${errors} (${(errorRate * 100).toFixed(3)} %, bound ≤ 0.1 %)`,
    `latency p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms`,
    `webhooks received ${result.webhooks_received}`,
    `RSS first ${result.rss_mb.first} MB, max ${result.rss_mb.max} MB, last ${result.rss_mb.last} MB; trend ${result.rss_trend_mb_per_minute} MB/min after warm-up (${memoryOk ? 'bounded' : 'GROWING'})`,
    'report: reliability/results/soak.json',
    '',
  ].join('\n'),
);
await client.close();
for (const r of receivers) await r.close();
await api.kill();
rmSync(dataDir, { recursive: true, force: true });
await dropSchema();
process.exit(errorRate <= 0.001 && memoryOk ? 0 : 1);
