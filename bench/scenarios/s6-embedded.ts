import type { LoadResult } from '../lib/load.ts';
import { fmt, judge, ms, type Report } from '../lib/report.ts';

type Raw = Record<string, { service?: LoadResult; memory?: LoadResult; cursor?: LoadResult } | undefined>;

/**
 * Scenario 6: scenarios 1 to 3 on the embedded default (PGlite, in-memory limiter) against
 * PostgreSQL in the same run. Throughputs are divided PGlite ÷ PostgreSQL; for the page time the
 * inverse (PostgreSQL time ÷ PGlite time), so above 0.5 always means "at least half as fast".
 * Scenario 2 compares the in-memory limiter on both, so only the database differs.
 */
export function embeddedRows(report: Report): void {
  const raw = report.raw as Raw;
  const pairs: [number, string, LoadResult | undefined, LoadResult | undefined, 'rps' | 'time'][] = [
    [1, 'GET /calls throughput', raw['s1.embedded']?.service, raw['s1.postgres']?.service, 'rps'],
    [
      2,
      'GET /auth/whoami throughput, in-memory limiter',
      raw['s2.embedded']?.memory,
      raw['s2.postgres']?.memory,
      'rps',
    ],
    [
      3,
      'cursor page 25 rows from the end, median time',
      raw['s3.embedded']?.cursor,
      raw['s3.postgres']?.cursor,
      'time',
    ],
  ];
  for (const [n, what, lite, pg, kind] of pairs) {
    if (!lite || !pg) continue;
    const ratio = kind === 'rps' ? lite.rps / pg.rps : pg.p50 / lite.p50;
    report.rows.push({
      scenario: 6,
      backend: 'embedded',
      what: `scenario ${n} on PGlite ÷ PostgreSQL: ${what}`,
      value: kind === 'rps' ? `${fmt(lite.rps)} vs ${fmt(pg.rps)} req/s` : `${ms(lite.p50)} vs ${ms(pg.p50)}`,
      ratio,
      target: '≥ 0.5',
      status: judge(ratio >= 0.5),
      tool: lite.tool,
      note: '',
    });
  }
}
