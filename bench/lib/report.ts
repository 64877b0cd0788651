import os from 'node:os';
import type { LoadResult } from './load.ts';
import type { BackendName, LoadToolName, Sizes } from './options.ts';

export type Status = 'met' | 'missed' | 'info';

/** One line of the table: a figure, its ratio to its floor (when it has one) and its target. */
export type Row = {
  scenario: number;
  backend: BackendName;
  what: string;
  value: string;
  /** The figure that the target is about (a ratio, or ms, or MB), or null when purely informative. */
  ratio: number | null;
  target: string;
  status: Status;
  /** Which load tool produced the figure ("wrk", "autocannon", "bench" for in-process timing). */
  tool: string;
  note: string;
  /** Why this figure differs between a quick and a full run by design (what it measures grows with the run). */
  bySize?: string;
  /** The figure's unit when it is not a ratio: a time or a size this machine reads, not one figure over another. */
  unit?: 'ms' | 'MB';
};

export type Report = {
  date: string;
  mode: Sizes['label'];
  sizes: Sizes;
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGb: number;
    node: string;
    platform: string;
    loadAverageAtStart: number[];
    loadAverageAtEnd: number[];
  };
  loadTool: LoadToolName;
  backends: { name: BackendName; label: string; datasetSeconds: number | null; postgresVersion?: string }[];
  rows: Row[];
  /** Raw figures per scenario and backend, for whoever wants more than the table. */
  raw: Record<string, unknown>;
  profile?: unknown;
  durationSeconds: number;
};

export function newReport(sizes: Sizes, tool: LoadToolName): Report {
  const cpus = os.cpus();
  return {
    date: new Date().toISOString(),
    mode: sizes.label,
    sizes,
    machine: {
      cpus: cpus.length,
      cpuModel: cpus[0]?.model ?? 'unknown',
      memoryGb: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      platform: `${os.type()} ${os.release()}`,
      loadAverageAtStart: os.loadavg().map((l) => Math.round(l * 100) / 100),
      loadAverageAtEnd: [],
    },
    loadTool: tool,
    backends: [],
    rows: [],
    raw: {},
    durationSeconds: 0,
  };
}

export const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The middle value (the upper one of an even count); 0 for none. */
export const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/**
 * Of runs repeated side by side (pairs, rounds), the one whose `ratio` is the median of all of theirs (`median`),
 * that median, and the note that lists every run's ratio in run order (`kind`: "pairs", "rounds").
 */
export function medianBy<T>(items: readonly T[], ratio: (item: T) => number, kind: string) {
  const ratios = items.map(ratio);
  const middle = median(ratios);
  return {
    item: items[ratios.indexOf(middle)] as T,
    ratio: middle,
    note: `${kind} ${ratios.map((r) => fmt(r, 2)).join(', ')} in run order`,
  };
}

export const ms = (n: number): string => `${fmt(n, n < 10 ? 2 : 1)} ms`;

export const rps = (r: LoadResult): string => `${fmt(r.rps)} req/s`;

/** `met`/`missed` from a comparison, `info` when there is no target. */
export const judge = (ok: boolean | null): Status => (ok === null ? 'info' : ok ? 'met' : 'missed');

/** Whether every run answered without errors or refusals (a row judged on any other is no verdict). */
export const valid = (...runs: LoadResult[]): boolean => runs.every((r) => r.non2xx === 0 && r.errors === 0);

/** Problems that make a load figure suspect (errors, refusals) in words, for the note column. */
export function validity(r: LoadResult): string {
  const parts = [];
  if (r.non2xx > 0) parts.push(`${fmt(r.non2xx)} answers ≥ 400`);
  if (r.errors > 0) parts.push(`${fmt(r.errors)} socket errors/timeouts`);
  return parts.length ? `INVALID: ${parts.join(', ')}` : '';
}

const BACKEND_SHORT: Record<BackendName, string> = { embedded: 'PGlite', postgres: 'PostgreSQL' };

/** The table as Markdown (printed, and pasted into the README). */
export function markdownTable(report: Report): string {
  const head = '| # | backend | measure | value | ratio / figure | target | result | tool | note |';
  const sep = '|---|---|---|---|---|---|---|---|---|';
  const lines = report.rows.map((r) =>
    [
      r.scenario,
      BACKEND_SHORT[r.backend],
      r.what,
      r.value,
      r.ratio === null ? '' : fmt(r.ratio, r.ratio < 10 ? 2 : 0),
      r.target,
      r.status === 'info' ? '' : r.status,
      r.tool,
      r.note,
    ]
      .map((c) => String(c).replace(/\|/g, '\\|'))
      .join(' | '),
  );
  return [head, sep, ...lines.map((l) => `| ${l} |`)].join('\n');
}

export function machineLine(report: Report): string {
  const m = report.machine;
  return (
    `${report.date.slice(0, 16).replace('T', ' ')} UTC, ${report.mode} mode, ${m.cpus} × ${m.cpuModel}, ` +
    `${m.memoryGb} GB, Node ${m.node}, load average ${m.loadAverageAtStart.join('/')} at start and ` +
    `${m.loadAverageAtEnd.join('/')} at end, load tool ${report.loadTool}`
  );
}

/** The short form for the README: one line per target, without raw values. */
export function compactTable(report: Report): string {
  const lines = report.rows
    .filter((r) => r.status !== 'info' || r.ratio !== null)
    .map((r) =>
      [
        r.scenario,
        BACKEND_SHORT[r.backend],
        r.what,
        r.ratio === null ? '' : fmt(r.ratio, r.ratio < 10 ? 2 : 0),
        r.target,
        r.status === 'info' ? '' : `**${r.status}**`,
      ]
        .map((c) => String(c).replace(/\|/g, '\\|'))
        .join(' | '),
    );
  return ['| # | backend | measure | ratio / figure | target | result |', '|---|---|---|---|---|---|']
    .concat(lines.map((l) => `| ${l} |`))
    .join('\n');
}

/** The profile summary as two Markdown tables (groups, then the hottest functions). */
export function profileTables(profile: unknown, rows = 12): string {
  if (!profile || typeof profile !== 'object' || !('groups' in profile) || !('top' in profile)) return '';
  const p = profile as {
    sampledMs: number;
    groups: { group: string; share: number }[];
    top: { frame: string; share: number }[];
  };
  const pct = (n: number) => `${(n * 100).toFixed(1)} %`;
  return [
    `Self time over ${fmt(p.sampledMs / 1000, 1)} s of samples, share of the busy (non-idle) time:`,
    '',
    '| where | share |',
    '|---|---|',
    ...p.groups.slice(0, rows).map((g) => `| ${g.group} | ${pct(g.share)} |`),
    '',
    '| hottest functions (self time) | share |',
    '|---|---|',
    ...p.top.slice(0, rows).map((g) => `| \`${g.frame}\` | ${pct(g.share)} |`),
  ].join('\n');
}
