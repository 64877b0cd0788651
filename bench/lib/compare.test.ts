import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agreementTable, compareReports, rowKey } from './compare.ts';
import { FULL, QUICK } from './options.ts';
import { newReport, type Row } from './report.ts';

const row = (over: Partial<Row>): Row => ({
  scenario: 1,
  backend: 'postgres',
  what: 'GET /calls throughput ÷ bare node:https floor',
  value: '',
  ratio: 1,
  target: 'report',
  status: 'info',
  tool: 'wrk',
  note: '',
  ...over,
});

test('a measure meets itself across runs whatever numbers the run put into its name', () => {
  const full = row({ what: 'GET /calls p99 at half the maximum (1,134 req/s asked, 1,133 served)' });
  const quick = row({ what: 'GET /calls p99 at half the maximum (1,620 req/s asked, 1,618 served)' });
  assert.equal(rowKey(full), rowKey(quick));
  const deep = row({ scenario: 3, what: 'cursor page 999,975 deep ÷ first page (median of 201 and 201)' });
  const shallow = row({ scenario: 3, what: 'cursor page 99,975 deep ÷ first page (median of 61 and 61)' });
  assert.equal(rowKey(deep), rowKey(shallow));
});

test('the same measure on another backend or scenario, or another measure, does not meet it', () => {
  const base = row({});
  assert.notEqual(rowKey(base), rowKey(row({ backend: 'embedded' })));
  assert.notEqual(rowKey(base), rowKey(row({ scenario: 6 })));
  assert.notEqual(
    rowKey(base),
    rowKey(row({ what: 'GET /auth/whoami, Redis limiter ÷ bare node:https hello' })),
  );
});

test('each figure both runs hold is judged within 20 % or outside; a size-bound or invalid one is set apart', () => {
  const full = newReport(FULL, 'wrk');
  const quick = newReport(QUICK, 'wrk');
  full.rows = [
    row({ what: 'a', ratio: 1 }),
    row({ what: 'b', ratio: 1 }),
    row({ what: 'c', ratio: 1 }),
    row({ what: 'd', ratio: 100, bySize: 'grows with the run' }),
    row({ what: 'e', ratio: 1, note: 'INVALID: 51 answers ≥ 400' }),
    row({ what: 'f', ratio: 1 }),
    row({ what: 'only in the full run', ratio: 1 }),
    row({ what: 'no figure', ratio: null }),
  ];
  quick.rows = [
    row({ what: 'a', ratio: 1.2 }),
    row({ what: 'b', ratio: 0.79 }),
    row({ what: 'c', ratio: 1.21 }),
    row({ what: 'd', ratio: 10 }),
    row({ what: 'e', ratio: 1 }),
    row({ what: 'f', ratio: 3, note: 'INVALID: 2 socket errors/timeouts' }),
    row({ what: 'no figure', ratio: 1 }),
  ];
  const verdicts = compareReports(full, quick).map((a) => [a.what, a.verdict, a.quotient.toFixed(2)]);
  assert.deepEqual(verdicts, [
    ['a', 'within', '1.20'],
    ['b', 'outside', '0.79'],
    ['c', 'outside', '1.21'],
    ['d', 'by design', '0.10'],
    ['e', 'invalid', '1.00'],
    ['f', 'invalid', '3.00'],
  ]);
});

test('a time or a size is judged like a ratio but carries its unit, so the table counts it apart', () => {
  const full = newReport(FULL, 'wrk');
  const quick = newReport(QUICK, 'wrk');
  full.rows = [row({ what: 'p99', ratio: 10, unit: 'ms' }), row({ what: 'r', ratio: 1 })];
  quick.rows = [row({ what: 'p99', ratio: 15, unit: 'ms' }), row({ what: 'r', ratio: 1.1 })];
  const got = compareReports(full, quick).map((a) => [a.what, a.verdict, a.unit]);
  assert.deepEqual(got, [
    ['p99', 'outside', 'ms'],
    ['r', 'within', undefined],
  ]);
  const head = agreementTable(full, quick).split('\n')[0] ?? '';
  assert.match(head, /1 of 1 ratios within 20 %; 0 of 1 times and sizes/);
});
