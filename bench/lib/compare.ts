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
  /** Set for a time or a size (not a ratio): the machine's reading, judged but counted apart from the ratios. */
  unit?: Row['unit'];
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
 * refusals in either report, is listed apart. Times and sizes (`unit`) are judged too but counted apart: issue 40's
 * agreement is about ratios, each of which divides the service by a floor measured beside it, while a time in ms
 * moves with whatever else the machine does in that minute (the floors' own p99s move as much as the service's).
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
      ...(row.unit ? { unit: row.unit } : {}),
    });
  }
  return out;
}

export function agreementTable(first: Report, second: Report): string {
  const rows = compareReports(first, second);
  const n = (x: number) => fmt(x, x < 10 ? 2 : 0);
  const judged = (ratios: boolean) =>
    rows.filter((r) => (r.verdict === 'within' || r.verdict === 'outside') && !r.unit === ratios);
  const tally = (ratios: boolean) => {
    const set = judged(ratios);
    return `${set.filter((r) => r.verdict === 'within').length} of ${set.length}`;
  };
  const count = (v: Agreement['verdict']) => rows.filter((r) => r.verdict === v).length;
  return [
    `${first.mode} run of ${first.date.slice(0, 16)} against ${second.mode} run of ${second.date.slice(0, 16)}: ` +
      `${tally(true)} ratios within ${AGREEMENT * 100} %; ${tally(false)} times and sizes (ms, MB: this machine's ` +
      `readings, not ratios); ${count('by design')} differ by design, ${count('invalid')} invalid`,
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
          r.verdict === 'within' || r.verdict === 'outside'
            ? `${r.verdict === 'within' ? 'within' : '**outside**'}${r.unit ? ` (${r.unit}, not a ratio)` : ''}`
            : `${r.verdict}: ${r.why}`,
        ]
          .map((c) => String(c).replace(/\|/g, '\\|'))
          .join(' | '),
      )
      .map((l) => `| ${l} |`),
  ].join('\n');
}
