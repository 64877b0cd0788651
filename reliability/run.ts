/**
 * `npm run test:reliability`: runs the reliability suite (node:test, one process), then scans every log the
 * suite captured for full API keys and webhook secrets, prints the figures as a table and writes them to
 * reliability/results/latest.json (and latest.md). Bounded: the whole run is stopped after the time limit.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Figure } from './lib/collector.ts';
import { FIGURES_FILE, LOGS_DIR, RESULTS_DIR, SECRETS_FILE } from './lib/collector.ts';

const REPO = path.resolve(import.meta.dirname, '..');
const LIMIT_SECONDS = Number(process.env.RELIABILITY_TIME_LIMIT_SECONDS ?? 540);
// Per test (and hook): a stalled test fails under its own name instead of running into the whole suite's
// limit. The slowest, the crash test's 10,000-event burst, takes about 130 s.
const TEST_TIMEOUT_MS = 300_000;

const started = Date.now();
for (const f of [FIGURES_FILE, SECRETS_FILE]) rmSync(f, { force: true });
for (const f of readdirSync(LOGS_DIR)) rmSync(path.join(LOGS_DIR, f), { force: true });

const files = process.argv.slice(2);
const child = spawn(
  process.execPath,
  [
    '--test',
    '--test-force-exit',
    '--test-isolation=none',
    `--test-timeout=${TEST_TIMEOUT_MS}`,
    '--test-reporter=spec',
    ...(files.length ? files : ['reliability/**/*.test.ts']),
  ],
  { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] },
);
let output = '';
child.stdout.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk);
  output += chunk.toString('utf8');
});
let timedOut = false;
const limit = setTimeout(() => {
  timedOut = true;
  process.stderr.write(`\nreliability: time limit of ${LIMIT_SECONDS} s reached, stopping the suite\n`);
  child.kill('SIGTERM');
  setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
}, LIMIT_SECONDS * 1000);
const code: number = await new Promise((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
clearTimeout(limit);
const durationSeconds = Math.round((Date.now() - started) / 1000);

const count = (label: string) => Number(new RegExp(`^ℹ ${label} (\\d+)$`, 'm').exec(output)?.[1] ?? 0);
// A skipped describe counts as no test in node's summary; count its line instead.
const skippedSuites = (output.match(/^\s*﹣ /gm) ?? []).length;
const tests = {
  pass: count('pass'),
  fail: count('fail'),
  skipped: Math.max(count('skipped'), skippedSuites),
  cancelled: count('cancelled'),
};

// Log scan: any full key or webhook secret in any captured log is a failure, ours or not.
const known = new Set(
  existsSync(SECRETS_FILE)
    ? readFileSync(SECRETS_FILE, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { sha256: string }).sha256)
    : [],
);
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const scan = {
  files: 0,
  bytes: 0,
  secrets_made: known.size,
  keys_found: 0,
  webhook_secrets_found: 0,
  of_ours: 0,
};
const leaks: string[] = [];
for (const name of readdirSync(LOGS_DIR)) {
  const text = readFileSync(path.join(LOGS_DIR, name), 'utf8');
  scan.files += 1;
  scan.bytes += text.length;
  for (const m of text.matchAll(/svc_live_[0-9A-Za-z]{36}|whsec_[0-9A-Za-z_+/=-]{20,}/g)) {
    if (m[0].startsWith('svc_live_')) scan.keys_found += 1;
    else scan.webhook_secrets_found += 1;
    if (known.has(sha(m[0]))) scan.of_ours += 1;
    leaks.push(`${name}: ${m[0].slice(0, 12)}…`);
  }
}
const leaked = scan.keys_found + scan.webhook_secrets_found;

const figures: Figure[] = existsSync(FIGURES_FILE)
  ? readFileSync(FIGURES_FILE, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Figure)
  : [];
figures.push(
  {
    section: 'Security: logs',
    name: 'log files captured (test apps and every child process)',
    value: scan.files,
  },
  { section: 'Security: logs', name: 'bytes of logs scanned', value: scan.bytes },
  {
    section: 'Security: logs',
    name: 'API keys and webhook secrets the suite made',
    value: scan.secrets_made,
  },
  {
    section: 'Security: logs',
    name: 'full API keys in the logs',
    value: scan.keys_found,
    bound: '= 0',
    ok: scan.keys_found === 0,
  },
  {
    section: 'Security: logs',
    name: 'webhook secrets in the logs',
    value: scan.webhook_secrets_found,
    bound: '= 0',
    ok: scan.webhook_secrets_found === 0,
  },
);

const cell = (f: Figure) => `${f.value}${f.unit ? ` ${f.unit}` : ''}`;
const rows = figures.map((f) => [
  f.section,
  f.name,
  cell(f),
  f.bound ?? '',
  f.ok === undefined ? '' : f.ok ? 'ok' : 'FAIL',
]);
const widths = [0, 1, 2, 3, 4].map((i) => Math.min(70, Math.max(...rows.map((r) => String(r[i]).length), 6)));
const line = (r: string[]) =>
  r
    .map((c, i) =>
      String(c)
        .slice(0, 200)
        .padEnd(widths[i] ?? 0),
    )
    .join(' │ ');
const header = ['section', 'figure', 'value', 'bound', ''];
process.stdout.write(`\n${line(header)}\n${widths.map((w) => '─'.repeat(w)).join('─┼─')}\n`);
let last = '';
for (const r of rows) {
  process.stdout.write(`${line([r[0] === last ? '' : (r[0] ?? ''), ...r.slice(1)])}\n`);
  last = r[0] ?? '';
}

const env = {
  node: process.version,
  cpus: os.cpus().length,
  database: process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite (embedded)',
  redis: process.env.REDIS_URL ? 'Redis' : 'none (in-memory limits)',
};
const report = {
  generated_at: new Date().toISOString(),
  duration_seconds: durationSeconds,
  time_limit_seconds: LIMIT_SECONDS,
  timed_out: timedOut,
  environment: env,
  tests,
  log_scan: scan,
  figures,
};
const jsonFile = path.join(RESULTS_DIR, 'latest.json');
writeFileSync(jsonFile, `${JSON.stringify(report, null, 2)}\n`);
// Keep the committed report in the repository's format, so `npm run lint` stays clean after a run.
spawnSync(path.join(REPO, 'node_modules/.bin/biome'), ['format', '--write', jsonFile], {
  cwd: REPO,
  stdio: 'ignore',
});
const md = [
  `Run ${report.generated_at}: ${durationSeconds} s, ${env.database}, ${env.redis}, Node ${env.node}, ${env.cpus} CPUs; tests ${tests.pass} passed, ${tests.fail} failed, ${tests.skipped} skipped.`,
  '',
  '| Section | Figure | Value | Bound | |',
  '|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.map((c) => String(c).replace(/\|/g, '\\|')).join(' | ')} |`),
  '',
].join('\n');
writeFileSync(path.join(RESULTS_DIR, 'latest.md'), md);

if (leaked > 0) process.stdout.write(`\nsecrets found in logs:\n  ${leaks.slice(0, 20).join('\n  ')}\n`);
process.stdout.write(
  `\nreport: reliability/results/latest.json (${durationSeconds} s${timedOut ? ', TIME LIMIT REACHED' : ''})\n`,
);
const failed = tests.fail + tests.cancelled + (leaked > 0 ? 1 : 0) + (timedOut ? 1 : 0);
// The closing line CI reads.
process.stdout.write(`reliability: ${tests.pass} passed, ${failed} failed, ${tests.skipped} skipped\n`);
process.exit(code !== 0 || failed > 0 ? 1 : 0);
