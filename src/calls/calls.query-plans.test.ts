import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Compilable, sql } from 'kysely';
import { assistantPageQuery } from '../assistants/assistants.repository.ts';
import type { Database } from '../db/database.ts';
import { makeAssistants, makeCalls } from '../testing/calls.fixtures.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import type { CallListFilter } from './calls.filter.repository.ts';
import { type CallPosition, callPageQuery, callPositionQuery } from './calls.read.repository.ts';

type PlanNode = {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
};

const flatten = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(flatten)];

/**
 * The plan of a query as PostgreSQL would choose it on a big table. The test table is tiny, so whole-table
 * strategies (sequential and bitmap scans, which lose their order) are priced out; sorting stays allowed,
 * so a plan without a Sort node proves the index order itself satisfies ORDER BY. Plans on a real
 * 1,000,000-call table, with default settings, are in docs/query-plans.md.
 */
async function planOf(
  db: Database,
  query: (tx: Database) => Compilable<unknown>,
  o: { bitmap?: boolean } = {},
): Promise<PlanNode[]> {
  return db.transaction().execute(async (tx) => {
    await sql`set local enable_seqscan = off`.execute(tx);
    // A GIN index is read by bitmap scans only (the metadata filter): allowed where a test says so.
    if (!o.bitmap) await sql`set local enable_bitmapscan = off`.execute(tx);
    const compiled = query(tx).compile();
    const result = await tx.executeQuery<{ 'QUERY PLAN': unknown }>({
      ...compiled,
      sql: `explain (format json) ${compiled.sql}`,
    });
    const raw = result.rows[0]?.['QUERY PLAN'];
    const parsed = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
    const plan = parsed[0]?.Plan;
    assert.ok(plan, 'EXPLAIN returned a plan');
    return flatten(plan);
  });
}

function assertIndexRangeScan(
  nodes: PlanNode[],
  table: string,
  index: string | readonly string[],
  condParts: string[] = [],
) {
  const scans = nodes.filter((n) => n['Relation Name'] === table);
  const shape = JSON.stringify(
    nodes.map((n) => [n['Node Type'], n['Index Name'] ?? n['Relation Name'] ?? '']),
  );
  assert.equal(scans.length, 1, shape);
  const [scan] = scans;
  assert.ok(scan);
  assert.match(scan['Node Type'], /^Index (Only )?Scan$/, shape);
  const allowed = typeof index === 'string' ? [index] : index;
  assert.ok(
    allowed.includes(scan['Index Name'] ?? ''),
    `${scan['Index Name']} not one of ${allowed.join(', ')}: ${shape}`,
  );
  for (const part of condParts)
    assert.ok(scan['Index Cond']?.includes(part), `${part} in ${scan['Index Cond']}`);
  assert.deepEqual(
    nodes.filter((n) => /Sort/.test(n['Node Type'])),
    [],
    `no Sort node: ${shape}`,
  );
}

describe('list queries are index range scans in index order (EXPLAIN)', () => {
  let t: TestApp;
  let customerId: string;
  let assistantId: string;
  before(async () => {
    t = await startTestApp();
    customerId = (await newCustomer(t)).customerId;
    const assistants = await makeAssistants(t, customerId, 3);
    assistantId = assistants[0]?.id ?? '';
    await makeCalls(t, customerId, assistants, 300);
    await sql`analyze calls`.execute(t.db);
  });
  after(() => t.close());

  const after_: CallPosition = {
    atIso: '2030-01-01T00:00:00.000000Z',
    id: '7fffffff-ffff-4fff-bfff-ffffffffffff',
  };
  const cases: [
    string,
    Omit<CallListFilter, 'customerId'>,
    CallPosition | null,
    string | string[],
    string[],
  ][] = [
    ['no filter', {}, null, 'calls_customer_started_idx', ['customer_id']],
    ['direction', { direction: 'inbound' }, null, 'calls_customer_direction_started_idx', ['direction']],
    // Status is checked on the rows read in index order (a Filter, not an Index Cond); see docs/query-plans.md.
    ['status', { statuses: 'completed,no_answer' }, null, 'calls_customer_started_idx', ['customer_id']],
    [
      'status and direction',
      { statuses: 'failed', direction: 'outbound' },
      null,
      'calls_customer_direction_started_idx',
      ['direction'],
    ],
    ['assistant_id', { assistantId: 'A' }, null, 'calls_customer_assistant_started_idx', ['assistant_id']],
    [
      'assistant_id and direction',
      { assistantId: 'A', direction: 'outbound' },
      null,
      'calls_customer_assistant_direction_started_idx',
      ['assistant_id', 'direction'],
    ],
    [
      'from and to',
      { fromIso: '2026-01-01T00:00:00.000000Z', toIso: '2026-02-01T00:00:00.000000Z' },
      null,
      'calls_customer_started_idx',
      ['started_at >=', 'started_at <='],
    ],
    [
      'direction, from and to',
      { direction: 'inbound', fromIso: '2026-01-01T00:00:00.000000Z', toIso: '2026-02-01T00:00:00.000000Z' },
      null,
      // Both give the list order with the time range in the index condition; which one the planner picks depends on
      // the statistics of the shared test table (other tests' customers), so either passes.
      ['calls_customer_direction_started_idx', 'calls_customer_started_idx'],
      ['started_at >='],
    ],
    ['cursor', {}, after_, 'calls_customer_started_idx', ['ROW(started_at, id) <']],
    [
      'cursor with direction',
      { direction: 'outbound' },
      after_,
      'calls_customer_direction_started_idx',
      ['ROW('],
    ],
    // Search (issue 39): exact values, each on an index in list order, the cursor in its condition.
    ['from_number', { fromNumber: '+14155550123' }, null, 'calls_customer_from_started_idx', ['from_number']],
    ['to_number', { toNumber: '+14155550123' }, null, 'calls_customer_to_started_idx', ['to_number']],
    ['external_id', { externalId: 'crm-42' }, null, 'calls_customer_external_started_idx', ['external_id']],
    [
      'disconnect_reason',
      { disconnectReason: 'provider_lost' },
      null,
      'calls_customer_reason_started_idx',
      ['disconnect_reason'],
    ],
    [
      'cursor with to_number and from',
      { toNumber: '+14155550123', fromIso: '2026-01-01T00:00:00.000000Z' },
      after_,
      'calls_customer_to_started_idx',
      ['to_number', 'ROW(', 'started_at >='],
    ],
    // Like status: checked on the rows read in list order (a boolean; docs/query-plans.md).
    ['has_transcript', { hasTranscript: false }, null, 'calls_customer_started_idx', ['customer_id']],
    [
      'cursor with every filter',
      { assistantId: 'A', direction: 'inbound', fromIso: '2026-01-01T00:00:00.000000Z' },
      after_,
      'calls_customer_assistant_direction_started_idx',
      ['ROW(', 'started_at >='],
    ],
  ];

  for (const [name, filter, start, index, cond] of cases) {
    it(`GET /calls, ${name}: ${index}`, async () => {
      const f = { ...filter, customerId, ...(filter.assistantId ? { assistantId } : {}) };
      const nodes = await planOf(t.db, (tx) => callPageQuery(tx, f, start, 26));
      assertIndexRangeScan(nodes, 'calls', index, cond);
    });
  }

  // updated_since and metadata: the matches from their own index, then sorted (readsMatchesFirst). Ranges of
  // duration and cost: so too when few match; when many do, the list order and a filter (below).
  const future = '2100-01-01T00:00:00.000000Z';
  const sorted: [string, Omit<CallListFilter, 'customerId'>, CallPosition | null, string, string[]][] = [
    [
      'updated_since, recent',
      { updatedSinceIso: future },
      null,
      'calls_customer_updated_idx',
      ['updated_at >='],
    ],
    [
      'updated_since with a cursor',
      { updatedSinceIso: future },
      after_,
      'calls_customer_updated_idx',
      ['updated_at'],
    ],
    [
      'duration_min, rare',
      { durationMin: 100_000 },
      null,
      'calls_customer_duration_idx',
      ['duration_seconds >='],
    ],
    [
      'duration_min and duration_max, rare',
      { durationMin: 100_000, durationMax: 200_000 },
      null,
      'calls_customer_duration_idx',
      ['duration_seconds >=', 'duration_seconds <='],
    ],
    ['cost_min, rare', { costMin: '1000.0000' }, null, 'calls_customer_cost_idx', ['cost_usd >=']],
    ['cost_max, rare', { costMax: '-1.0000' }, null, 'calls_customer_cost_idx', ['cost_usd <=']],
    ['metadata', { metadata: '{"plan":"gold"}' }, null, 'calls_metadata_terms_idx', ['calls_metadata_terms']],
    [
      'metadata, two pairs, with a cursor',
      { metadata: '{"plan":"gold","region":"eu"}' },
      after_,
      'calls_metadata_terms_idx',
      ['calls_metadata_terms'],
    ],
  ];
  for (const [name, filter, start, index, cond] of sorted) {
    it(`GET /calls, ${name}: the matches from ${index}, then sorted`, async () => {
      const nodes = await planOf(t.db, (tx) => callPageQuery(tx, { ...filter, customerId }, start, 26), {
        bitmap: true,
      });
      const shape = JSON.stringify(
        nodes.map((n) => [n['Node Type'], n['Index Name'] ?? n['Relation Name'] ?? '']),
      );
      const scans = nodes.filter((n) => n['Index Name']?.startsWith('calls_'));
      assert.deepEqual(
        scans.map((n) => n['Index Name']),
        [index],
        shape,
      );
      for (const part of cond) assert.ok(scans[0]?.['Index Cond']?.includes(part), `${part} in ${shape}`);
      assert.ok(
        nodes.some((n) => n['Node Type'] === 'Sort'),
        `sorted: ${shape}`,
      );
    });
  }

  it('GET /calls, updated_since long ago: still the matches first (behind the fence), then sorted', async () => {
    const f = { customerId, updatedSinceIso: '2000-01-01T00:00:00.000000Z' };
    for (const start of [null, after_]) {
      const nodes = await planOf(t.db, (tx) => callPageQuery(tx, f, start, 26), { bitmap: true });
      const shape = JSON.stringify(nodes.map((n) => [n['Node Type'], n['Index Name'] ?? '']));
      assert.ok(
        nodes.some((n) => n['Node Type'] === 'Subquery Scan'),
        `fenced: ${shape}`,
      );
      assert.ok(
        nodes.some((n) => n['Node Type'] === 'Sort'),
        `sorted: ${shape}`,
      );
    }
  });

  for (const [name, filter] of [
    ['duration_min, common', { durationMin: 0 }],
    ['cost_max, common', { costMax: '1000.0000' }],
  ] as const) {
    it(`GET /calls, ${name}: the list order with a filter, no sort`, async () => {
      const nodes = await planOf(t.db, (tx) => callPageQuery(tx, { ...filter, customerId }, null, 26), {
        bitmap: true,
      });
      assertIndexRangeScan(nodes, 'calls', 'calls_customer_started_idx', ['customer_id']);
    });
  }

  it('states the order in SQL, not only through the index it happens to use', () => {
    const order = /order by "c"\."started_at" desc, "c"\."id" desc limit/;
    assert.match(callPageQuery(t.db, { customerId }, null, 26).compile().sql, order);
    assert.match(callPositionQuery(t.db, { customerId }, 10).compile().sql, order);
    assert.match(
      assistantPageQuery(t.db, { customerId }, { offset: 0 }, 51).compile().sql,
      /order by "created_at" desc, "id" desc limit/,
    );
  });

  it('GET /calls, page: the skipped rows come from calls_customer_direction_started_idx alone', async () => {
    const f = { customerId, direction: 'inbound' as const };
    const nodes = await planOf(t.db, (tx) => callPositionQuery(tx, f, 50));
    assertIndexRangeScan(nodes, 'calls', 'calls_customer_direction_started_idx', ['direction']);
  });

  it('GET /calls, page: one statement, the skipped rows index-only, the page a range scan after them', async () => {
    const f = { customerId, direction: 'inbound' as const };
    const nodes = await planOf(t.db, (tx) => callPageQuery(tx, f, { skipped: 50 }, 26));
    const shape = JSON.stringify(nodes.map((n) => [n['Node Type'], n['Index Name'] ?? '']));
    const scans = nodes.filter((n) => n['Relation Name'] === 'calls');
    assert.deepEqual(
      scans.map((n) => [n['Node Type'], n['Index Name']]).sort(),
      [
        ['Index Only Scan', 'calls_customer_direction_started_idx'],
        ['Index Scan', 'calls_customer_direction_started_idx'],
      ],
      shape,
    );
    assert.deepEqual(
      nodes.filter((n) => /Sort/.test(n['Node Type'])),
      [],
      shape,
    );
  });

  it('GET /assistants, offset and cursor: the page and its counts all on assistants_customer_idx', async () => {
    const cursor = { after: after_ };
    for (const [start, scans] of [
      [{ offset: 0 }, 2],
      [cursor, 3],
    ] as const) {
      const nodes = await planOf(t.db, (tx) => assistantPageQuery(tx, { customerId }, start, 51));
      const shape = JSON.stringify(nodes.map((n) => [n['Node Type'], n['Index Name'] ?? '']));
      const onTable = nodes.filter((n) => n['Relation Name'] === 'assistants');
      assert.equal(onTable.length, scans, shape);
      for (const scan of onTable) {
        assert.match(scan['Node Type'], /^Index (Only )?Scan$/, shape);
        assert.equal(scan['Index Name'], 'assistants_customer_idx', shape);
        assert.ok(scan['Index Cond']?.includes('customer_id'), shape);
      }
      assert.deepEqual(
        nodes.filter((n) => /Sort/.test(n['Node Type'])),
        [],
        shape,
      );
    }
  });
});
