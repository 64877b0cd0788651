import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { KEEP_FOREVER, type RetentionBounds, retentionChoiceIssues, retentionDays } from './call-data.ts';

const BOUNDED: RetentionBounds = { defaultDays: 90, minDays: 7, maxDays: 365 };

describe('call retention: a choice held within the operator bounds', () => {
  it('gives the period a stored choice means (null: for ever)', () => {
    const table: [number | null, RetentionBounds, number | null][] = [
      // No choice: the default; "for ever" where none is set.
      [null, KEEP_FOREVER, null],
      [null, BOUNDED, 90],
      [null, { defaultDays: null, minDays: 1, maxDays: 30 }, 30],
      // A choice of days, held within the bounds set since.
      [30, KEEP_FOREVER, 30],
      [30, BOUNDED, 30],
      [3, BOUNDED, 7],
      [1000, BOUNDED, 365],
      // For ever (0): where a longest is set, that.
      [0, KEEP_FOREVER, null],
      [0, BOUNDED, 365],
    ];
    for (const [chosen, bounds, days] of table)
      assert.equal(retentionDays(chosen, bounds), days, `${chosen} under ${JSON.stringify(bounds)}`);
  });

  it('refuses a choice outside the bounds, and "for ever" where a longest is set', () => {
    assert.deepEqual(retentionChoiceIssues(7, BOUNDED), []);
    assert.deepEqual(retentionChoiceIssues(365, BOUNDED), []);
    assert.deepEqual(retentionChoiceIssues('default', BOUNDED), []);
    assert.deepEqual(retentionChoiceIssues('forever', KEEP_FOREVER), []);
    for (const bad of [6, 366, 0, 1.5] as const)
      assert.match(retentionChoiceIssues(bad, BOUNDED)[0]?.message ?? '', /from 7 to 365/, String(bad));
    assert.match(retentionChoiceIssues('forever', BOUNDED)[0]?.message ?? '', /at most 365 days/);
  });
});

describe('call data settings of a customer (customers service)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ callRetention: BOUNDED });
  });
  after(() => t.close());

  it('follows the default until a choice is made; "default" goes back to it; refuses what the bounds do not allow', async () => {
    const c = await newCustomer(t);
    const settings = await t.services.customers.callDataSettings(c.customerId);
    assert.deepEqual(settings, {
      call_retention_days: 90,
      call_retention_is_default: true,
      call_retention_min_days: 7,
      call_retention_max_days: 365,
      call_retention_default_days: 90,
      redact_transcripts: false,
    });
    const chosen = await t.services.customers.setCallRetention(c.customerId, 30);
    assert.equal(chosen.call_retention_days, 30);
    assert.equal(chosen.call_retention_is_default, false);
    for (const bad of [3, 400, 'forever'] as const) {
      await assert.rejects(t.services.customers.setCallRetention(c.customerId, bad), {
        code: 'input.invalid',
      });
    }
    assert.equal((await t.services.customers.callDataSettings(c.customerId)).call_retention_days, 30, 'kept');
    const back = await t.services.customers.setCallRetention(c.customerId, 'default');
    assert.equal(back.call_retention_days, 90);
    assert.equal(back.call_retention_is_default, true);
    const redacting = await t.services.customers.setTranscriptRedaction(c.customerId, true);
    assert.equal(redacting.redact_transcripts, true);
    await assert.rejects(t.services.customers.setCallRetention('00000000-0000-4000-8000-000000000000', 30), {
      code: 'resource.not_found',
    });
  });

  it('with a default, every customer is a retention target; a test twin follows its customer', async () => {
    const c = await newCustomer(t);
    const other = await newCustomer(t);
    await t.services.customers.setCallRetention(c.customerId, 14);
    await t.services.keys.createKey({
      customerId: c.customerId,
      name: 't',
      scopes: ['read_calls'],
      mode: 'test',
    });
    const twin = await t.db
      .selectFrom('customers')
      .select('id')
      .where('live_customer_id', '=', c.customerId)
      .executeTakeFirstOrThrow();
    const targets = new Map(
      (await t.services.customers.retentionTargets()).map((r) => [r.customerId, r.days] as const),
    );
    assert.equal(targets.get(c.customerId), 14);
    assert.equal(targets.get(twin.id), 14);
    assert.equal(targets.get(other.customerId), 90, 'no choice: the default');
    assert.equal((await t.services.customers.callDataSettings(twin.id)).call_retention_days, 14);
    await assert.rejects(t.services.customers.setCallRetention(twin.id, 30), { code: 'resource.not_found' });
  });
});
