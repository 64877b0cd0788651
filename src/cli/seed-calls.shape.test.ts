import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CallRow } from '../db/tables/calls.table.ts';
import { createKeyHasher } from '../keys/key-hash.ts';
import { advance, newCaller, placeCall } from '../testing/outbound.fixtures.ts';
import { PRODUCTION_OUTBOUND_DEFAULTS, startTestApp, type TestApp } from '../testing/test-app.ts';
import { seedDataset } from './seed-dataset.ts';

const SECRET = 'seed-shape-test-server-secret-0123456789';

/** What a value is, as far as a reader of the row can tell: absent, a date, or a JavaScript type. */
const kind = (v: unknown) => (v === null ? 'null' : v instanceof Date ? 'date' : typeof v);
const shape = (row: CallRow) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, kind(v)]));
/** Calls of one kind: same direction, outcome, origin and whether they carry the caller's reference. */
const sort = (r: CallRow) => [r.direction, r.status, r.api_initiated, r.external_id === null].join(' ');

describe('seeded calls and live calls', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ serverSecret: SECRET });
  });
  after(() => t.close());

  it('have the same shape: the same columns set, with the same kinds of values, for each kind of call', async () => {
    const caller = await newCaller(t);
    const placed = await placeCall(t, caller, { external_id: 'crm-1', variables: { first_name: 'Ada' } });
    assert.equal(placed.status, 201, placed.text);
    await t.services.simulator.simulateInbound({
      assistantId: caller.assistant.id,
      to: caller.assistant.phone_numbers[0] ?? '',
      from: '+14155550123',
      callerName: 'Wei Chen',
      language: 'en-US',
      // 5 % of inbound calls are canceled by chance (the call's own seed): this one must complete.
      outcome: 'completed',
    });
    for (let i = 0; i < 8; i++) await advance(t, 120);
    const live = await t.db
      .selectFrom('calls')
      .selectAll()
      .where('customer_id', '=', caller.customerId)
      .execute();
    assert.ok(live.some((r) => r.direction === 'outbound' && r.status === 'completed'));
    assert.ok(live.some((r) => r.direction === 'inbound' && r.status === 'completed'));

    const seeded = await seedDataset(
      t.db,
      { hasher: createKeyHasher(SECRET), clock: t.clock, outboundDefaults: PRODUCTION_OUTBOUND_DEFAULTS },
      {
        customers: 1,
        assistantsPerCustomer: 1,
        calls: 1_000,
        keysPerCustomer: 1,
        days: 30,
        batchSize: 1_000,
        customerRateLimit: 600,
        keyRateLimit: null,
      },
    );
    const rows = await t.db
      .selectFrom('calls')
      .selectAll()
      .where('customer_id', 'in', seeded.customers)
      .execute();
    for (const call of live) {
      const twin = rows.find((r) => sort(r) === sort(call));
      assert.ok(twin, `a seeded call like the live ${sort(call)}`);
      assert.deepEqual(shape(twin), shape(call), sort(call));
    }
  });
});
