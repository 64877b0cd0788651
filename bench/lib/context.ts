import type { Backend } from './backend.ts';
import type { Fixture } from './dataset.ts';
import type { LoadFiles } from './load-data.ts';
import type { LoadSpec } from './load-spec.ts';
import type { BenchOptions, LoadToolName, Sizes } from './options.ts';
import type { Report, Row } from './report.ts';

/** What every scenario gets: options, the report to add to, and the backend it runs on. */
export type Ctx = {
  opts: BenchOptions;
  sizes: Sizes;
  tool: LoadToolName;
  report: Report;
  log(line: string): void;
  backend: Backend;
  fixture: Fixture;
  files: LoadFiles;
  /** The backend the profile and the headline figures come from (PostgreSQL when configured). */
  primary: boolean;
};

/** Load runs use the same connections and threads against every server so the ratios compare like with like. */
export const CONNECTIONS = 50;
export const THREADS = 2;

/** Scenario 1's load: GET /calls with its six filter shapes and rotating keys, 50 connections, flat out. */
export const listCallsLoad = (
  url: string,
  files: { calls: string; windows: string },
  seconds: number,
): LoadSpec => ({
  url,
  mode: 'calls',
  dataFile: files.calls,
  windowsFile: files.windows,
  connections: CONNECTIONS,
  threads: THREADS,
  seconds,
});

export function addRow(
  ctx: Ctx,
  row: Omit<Row, 'backend' | 'tool' | 'note'> & { tool?: string; note?: string },
) {
  ctx.report.rows.push({ backend: ctx.backend.name, tool: ctx.tool, note: '', ...row });
}

export function addRaw(ctx: Ctx, key: string, value: unknown) {
  ctx.report.raw[`${key}.${ctx.backend.name}`] = value;
}
