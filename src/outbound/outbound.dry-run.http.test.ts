import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  assertProblem,
  type Caller,
  dryRunCall,
  newCaller,
  placeCall,
} from '../testing/outbound.fixtures.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';

/**
 * The dry run is its own operation, `POST /outbound-calls/dry-run`, so `POST /outbound-calls` has one success
 * shape (201). The earlier form `?dry_run=true` still works: it is routed to that operation, so the response check
 * of the test app holds its answer to the dry run's documented schema, not placement's.
 */
describe('POST /outbound-calls/dry-run and its earlier form ?dry_run=true', () => {
  let t: TestApp;
  let c: Caller;
  before(async () => {
    t = await startTestApp();
    c = await newCaller(t, { cap: '2.00' });
  });
  after(() => t.close());

  const callsOf = async (customerId: string) =>
    (
      await t.db
        .selectFrom('calls')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('customer_id', '=', customerId)
        .executeTakeFirstOrThrow()
    ).n;

  it('answers 200 with every check, placing, reserving and storing nothing', async () => {
    const placements = await t.services.simulator.placementCount();
    const res = await dryRunCall(t, c);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.allowed, true);
    assert.deepEqual(
      res.body.checks.map((x: { name: string }) => x.name),
      ['assistant', 'number_type', 'country', 'spend_cap'],
    );
    assert.equal(res.headers.location, undefined);
    assert.equal(await t.services.simulator.placementCount(), placements);
    assert.equal(Number(await callsOf(c.customerId)), 0);
    assert.equal((await dryRunCall(t, c)).body.spend.used_today_usd, '0.0000', 'nothing reserved');
  });

  for (const query of ['?dry_run=true', '?dry%5Frun=tru%65']) {
    it(`answers POST /outbound-calls${query} as the dry run: the same body, nothing placed`, async () => {
      const placements = await t.services.simulator.placementCount();
      const alias = await placeCall(t, c, { to_number: '+442071838750' }, { query });
      assert.equal(alias.status, 200, alias.text);
      assert.deepEqual(alias.body, (await dryRunCall(t, c, { to_number: '+442071838750' })).body);
      assert.equal(alias.body.allowed, false);
      assert.equal(alias.headers.location, undefined);
      assert.equal(await t.services.simulator.placementCount(), placements);
      assert.equal(Number(await callsOf(c.customerId)), 0);
    });
  }

  it('places the call with ?dry_run=false, the same as no parameter', async () => {
    const own = await newCaller(t);
    const res = await placeCall(t, own, {}, { query: '?dry_run=false' });
    assert.equal(res.status, 201, res.text);
    assert.equal(Number(await callsOf(own.customerId)), 1);
  });

  const refused: [string, string, string[]][] = [
    ['another dry_run value', '/outbound-calls?dry_run=yes', ['query', 'dry_run']],
    ['dry_run in upper case', '/outbound-calls?dry_run=TRUE', ['query', 'dry_run']],
    ['dry_run twice', '/outbound-calls?dry_run=true&dry_run=true', ['query', 'dry_run']],
    ['dry_run true and false', '/outbound-calls?dry_run=true&dry_run=false', ['query', 'dry_run']],
    ['an unknown parameter on the dry run', '/outbound-calls/dry-run?force=1', ['query', 'force']],
    ['an unknown parameter beside the alias', '/outbound-calls?dry_run=true&force=1', ['query', 'force']],
    ['dry_run on the dry run itself', '/outbound-calls/dry-run?dry_run=true', ['query', 'dry_run']],
  ];
  for (const [what, path, issue] of refused) {
    it(`refuses ${what} (422, nothing placed): ${path}`, async () => {
      const placements = await t.services.simulator.placementCount();
      const res = await t.request('POST', `/api/v1${path}`, {
        key: c.key,
        body: { assistant_id: c.assistant.id, to_number: '+14155550199' },
      });
      assertProblem(res, 422, 'input.invalid');
      assert.deepEqual(
        res.body.issues.map((i: { path: string[] }) => i.path),
        [issue],
      );
      assert.equal(await t.services.simulator.placementCount(), placements);
    });
  }

  it('needs the outbound_calls scope and a key, and validates the body as a placement does', async () => {
    const reader = await newCaller(t, { scopes: ['read_calls'] });
    assertProblem(await dryRunCall(t, reader), 403, 'perm.denied');
    assertProblem(await placeCall(t, reader, {}, { query: '?dry_run=true' }), 403, 'perm.denied');
    assertProblem(
      await t.request('POST', '/api/v1/outbound-calls/dry-run', { body: {} }),
      401,
      'auth.missing',
    );
    const bad = await dryRunCall(t, c, { to_number: '555', extra: 1 });
    assertProblem(bad, 422, 'input.invalid');
    assert.deepEqual(bad.body.issues.map((i: { path: string[] }) => i.path.join('.')).sort(), [
      'body.extra',
      'body.to_number',
    ]);
  });
});
