import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createKeyHasher } from '../keys/key-hash.ts';
import { PRODUCTION_OUTBOUND_DEFAULTS, startTestApp, type TestApp } from '../testing/test-app.ts';
import { seedDataset } from './seed-dataset.ts';

const SECRET = 'seed-test-server-secret-0123456789abcdef';

describe('seed: large realistic data sets', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ serverSecret: SECRET });
  });
  after(() => t.close());
  const seedDeps = () => ({
    hasher: createKeyHasher(SECRET),
    clock: t.clock,
    outboundDefaults: PRODUCTION_OUTBOUND_DEFAULTS,
  });

  it('creates customers, assistants, working keys and realistic calls, evenly spread', async () => {
    const phases: string[] = [];
    let advanced = 0;
    const result = await seedDataset(
      t.db,
      seedDeps(),
      {
        customers: 3,
        assistantsPerCustomer: 2,
        calls: 3_000,
        keysPerCustomer: 2,
        days: 30,
        batchSize: 1_000,
        customerRateLimit: 600,
        keyRateLimit: null,
      },
      { start: (phase) => phases.push(phase), advance: (n) => (advanced += n), stop() {} },
    );
    assert.deepEqual(phases, ['keys', 'calls']);
    assert.equal(advanced, 6 + 3_000);
    assert.equal(result.customers.length, 3);
    assert.equal(result.assistants, 6);
    assert.equal(result.keys.length, 6);

    const perCustomer = await t.db
      .selectFrom('calls')
      .select(['customer_id', (eb) => eb.fn.countAll<string>().as('n')])
      .where('customer_id', 'in', result.customers)
      .groupBy('customer_id')
      .execute();
    assert.deepEqual(
      perCustomer.map((r) => Number(r.n)),
      [1000, 1000, 1000],
    );

    // Every call's assistant belongs to the call's customer.
    const { rows: mismatched } = await sql<{ n: string }>`
      select count(*) as n from calls c join assistants a on a.id = c.assistant_id
      where c.customer_id = any(${result.customers}::uuid[]) and a.customer_id <> c.customer_id`.execute(
      t.db,
    );
    assert.equal(Number(mismatched[0]?.n), 0);

    const { rows: mix } = await sql<{
      outbound: number;
      completed: number;
      api_ext: number;
      bad_cost: number;
    }>`
      select avg((direction = 'outbound')::int)::float8 as outbound,
        avg((status = 'completed')::int)::float8 as completed,
        sum((external_id is not null and not api_initiated)::int)::int as api_ext,
        sum((cost_usd <> round(billable_seconds / 60.0 * 0.09, 4))::int)::int as bad_cost
      from calls where customer_id = any(${result.customers}::uuid[])`.execute(t.db);
    const m = mix[0];
    assert.ok(m);
    assert.ok(m.outbound > 0.3 && m.outbound < 0.4, `outbound share ${m.outbound}`);
    assert.ok(m.completed > 0.77 && m.completed < 0.87, `completed share ${m.completed}`);
    assert.equal(m.api_ext, 0, 'external_id only on API-placed calls');
    assert.equal(m.bad_cost, 0, 'cost is 0.09 USD per started minute');

    // The planner knows what was written (statistics taken), so pages and exports use the list's index.
    const { rows: stats } = await sql<{ estimated: number; counted: number }>`
      select (select reltuples from pg_class where oid = 'calls'::regclass)::float8 as estimated,
        (select count(*) from calls)::float8 as counted`.execute(t.db);
    const s = stats[0];
    assert.ok(
      s && Math.abs(s.estimated - s.counted) <= s.counted * 0.1,
      `estimated ${s?.estimated} of ${s?.counted}`,
    );

    // The keys are real: they authenticate, and see their own customer's calls.
    const key = result.keys[4];
    assert.ok(key);
    assert.equal(key.prefix, key.secret.slice(0, 12));
    const whoami = await t.request('GET', '/api/v1/auth/whoami', { key: key.secret });
    assert.equal(whoami.status, 200);
    assert.equal(whoami.body.customer_id, key.customer_id);
    const calls = await t.request('GET', '/api/v1/calls?limit=100', { key: key.secret });
    assert.equal(calls.status, 200);
    assert.equal(calls.body.data.length, 100);
    const assistants = await t.request('GET', '/api/v1/assistants', { key: key.secret });
    assert.equal(assistants.body.pagination.total, 2);
    // Made like any key without an allowlist or cap: the defaults, inside its customer's limits.
    const seeded = await t.services.keys.getKey(key.customer_id, key.key_id);
    assert.deepEqual(
      [seeded.allowed_countries, seeded.daily_spend_cap_usd, seeded.narrowed_by_customer_limits],
      [['US', 'CA'], '100.00', false],
    );
  });

  it('seeds the most keys a customer may get for many customers (more than one statement could carry)', async () => {
    // 60 customers × 100 keys once went as one insert of 72,000 parameters, past the protocol's 65,535.
    const result = await seedDataset(
      t.db,
      seedDeps(),
      {
        customers: 60,
        assistantsPerCustomer: 1,
        calls: 0,
        keysPerCustomer: 100,
        days: 1,
        batchSize: 1_000,
        customerRateLimit: 600,
        keyRateLimit: null,
      },
      { start() {}, advance() {}, stop() {} },
    );
    assert.equal(result.keys.length, 6_000);
    assert.equal(new Set(result.keys.map((k) => k.key_id)).size, 6_000);
    const { rows } = await sql<{ n: string }>`
      select count(*) as n from api_keys k join api_key_secrets s on s.key_id = k.id
      where k.customer_id = any(${result.customers}::uuid[])`.execute(t.db);
    assert.equal(Number(rows[0]?.n), 6_000);
    const last = result.keys.at(-1);
    assert.ok(last);
    const whoami = await t.request('GET', '/api/v1/auth/whoami', { key: last.secret });
    assert.equal(whoami.body.customer_id, last.customer_id);
  });
});
