import { fmt, type Report, type Row } from './report.ts';

/** How far a quick run's figure may lie from the full run's (issue 40: within 20 %). */
export const AGREEMENT = 0.2;

/**
 * A row's identity across runs: its scenario, backend and measure with the run's own numbers taken out (rates
 * asked, counts of samples, depths), so that the same measure of a quick and a full run meet.
 */
export function rowKey(row: Row): string {
  const measure = row.what
    .replace(/\s*\([^)]*\d[^)]*\)/g, '')
    .replace(/\d[\d,.]*/g, '#')
    .trim();
  return `${row.scenario} ${row.backend} ${measure}`;
}

export type Agreement = {
  scenario: number;
  backend: Row['backend'];
  what: string;
  first: number;
  second: number;
  /** second ÷ first */
  quotient: number;
  verdict: 'within' | 'outside' | 'by design' | 'invalid';
  why: string;
};

/** A figure from runs with errors or refusals (report.ts's `validity` writes this into the note). */
const invalid = (row: Row) => row.note.includes('INVALID');

/** Why a pair of rows is not judged on its quotient, if it is not. */
function verdictApart(row: Row, other: Row): Pick<Agreement, 'verdict' | 'why'> | null {
  if (invalid(row) || invalid(other))
    return { verdict: 'invalid', why: 'errors or refusals in the runs (see the note)' };
  const bySize = row.bySize ?? other.bySize;
  return bySize ? { verdict: 'by design', why: bySize } : null;
}

/**
 * Every figure two reports both hold (rows with a number), the second's ÷ the first's, and whether it lies within
 * `AGREEMENT`. A row that names why its figure depends on the run's size (`bySize`), or whose runs had errors or
 * refusals in either report, is listed apart.
 */
export function compareReports(first: Report, second: Report): Agreement[] {
  const theirs = new Map(second.rows.map((r) => [rowKey(r), r]));
  const out: Agreement[] = [];
  for (const row of first.rows) {
    const other = theirs.get(rowKey(row));
    if (!other || row.ratio === null || other.ratio === null || row.ratio === 0) continue;
    const quotient = other.ratio / row.ratio;
    const apart = verdictApart(row, other);
    out.push({
      scenario: row.scenario,
      backend: row.backend,
      what: row.what,
      first: row.ratio,
      second: other.ratio,
      quotient,
      verdict: apart?.verdict ?? (Math.abs(quotient - 1) <= AGREEMENT ? 'within' : 'outside'),
      why: apart?.why ?? '',
    });
  }
  return out;
}

export function agreementTable(first: Report, second: Report): string {
  const rows = compareReports(first, second);
  const n = (x: number) => fmt(x, x < 10 ? 2 : 0);
  const counted = rows.filter((r) => r.verdict === 'within' || r.verdict === 'outside');
  const within = counted.filter((r) => r.verdict === 'within').length;
  const count = (v: Agreement['verdict']) => rows.filter((r) => r.verdict === v).length;
  return [
    `${first.mode} run of ${first.date.slice(0, 16)} against ${second.mode} run of ${second.date.slice(0, 16)}: ` +
      `${within} of ${counted.length} figures within ${AGREEMENT * 100} %` +
      ` (${count('by design')} differ by design, ${count('invalid')} invalid)`,
    '',
    `| # | backend | measure | ${first.mode} | ${second.mode} | ${second.mode} ÷ ${first.mode} | |`,
    '|---|---|---|---|---|---|---|',
    ...rows
      .map((r) =>
        [
          r.scenario,
          r.backend,
          r.what,
          n(r.first),
          n(r.second),
          r.quotient.toFixed(2),
          r.verdict === 'within'
            ? 'within'
            : r.verdict === 'outside'
              ? '**outside**'
              : `${r.verdict}: ${r.why}`,
        ]
          .map((c) => String(c).replace(/\|/g, '\\|'))
          .join(' | '),
      )
      .map((l) => `| ${l} |`),
  ].join('\n');
}
