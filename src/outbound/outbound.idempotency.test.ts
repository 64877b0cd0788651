import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ANSWERS,
  type Caller,
  dryRunCall,
  newCaller,
  placeCall,
  providerGate,
} from '../testing/outbound.fixtures.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';
import { IDEMPOTENCY_RETENTION_MS, IN_FLIGHT_STALE_MS, requestHash } from './idempotency.ts';

describe('POST /outbound-calls with Idempotency-Key', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const callsOf = async (c: Caller) =>
    (await t.db.selectFrom('calls').select('id').where('customer_id', '=', c.customerId).execute()).map(
      (r) => r.id,
    );
  const body = { to_number: ANSWERS, external_id: 'order-1' };

  it('replays the first response for a retry with the same key and body, and places one call', async () => {
    const c = await newCaller(t);
    const placements = await t.services.simulator.placementCount();
    const first = await placeCall(t, c, body, { idempotencyKey: 'retry-me' });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    t.clock.advance(3600_000);
    const again = await placeCall(
      t,
      c,
      { external_id: 'order-1', to_number: ANSWERS },
      { idempotencyKey: 'retry-me' },
    );
    assert.equal(again.status, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.text, first.text, 'byte for byte the first response');
    assert.equal(again.headers.location, first.headers.location);
    assert.deepEqual(await callsOf(c), [first.body.id]);
    assert.equal(await t.services.simulator.placementCount(), placements + 1);
  });

  it('answers 409 resource.conflict for the same key with a different body', async () => {
    const c = await newCaller(t);
    assert.equal((await placeCall(t, c, body, { idempotencyKey: 'k1' })).status, 201);
    const other = await placeCall(t, c, { ...body, external_id: 'order-2' }, { idempotencyKey: 'k1' });
    assert.equal(other.status, 409, other.text);
    assert.equal(other.body.code, 'resource.conflict');
    assert.match(other.body.detail, /different request body/);
    assert.equal((await callsOf(c)).length, 1);
  });

  it('answers 409 while the first request is still in flight, then replays once it completes', async () => {
    const c = await newCaller(t);
    const gate = providerGate(t);
    const first = placeCall(t, c, body, { idempotencyKey: 'slow' });
    await gate.held(1);
    const during = await placeCall(t, c, body, { idempotencyKey: 'slow' });
    assert.equal(during.status, 409, during.text);
    assert.equal(during.body.code, 'resource.conflict');
    assert.match(during.body.detail, /still in progress/);
    gate.open();
    assert.equal((await first).status, 201);
    const after = await placeCall(t, c, body, { idempotencyKey: 'slow' });
    assert.equal(after.headers['idempotent-replayed'], 'true');
    assert.equal((await callsOf(c)).length, 1);
  });

  it('lets exactly one of two concurrent identical requests place the call', async () => {
    const c = await newCaller(t);
    const placements = await t.services.simulator.placementCount();
    const [a, b] = await Promise.all([
      placeCall(t, c, body, { idempotencyKey: 'twin' }),
      placeCall(t, c, body, { idempotencyKey: 'twin' }),
    ]);
    const statuses = [a.status, b.status].sort();
    const fresh = [a, b].filter((r) => r.status === 201 && r.headers['idempotent-replayed'] !== 'true');
    assert.equal(fresh.length, 1, `one request placed the call (statuses ${statuses})`);
    const loser = a === fresh[0] ? b : a;
    assert.ok(
      loser.status === 409 || (loser.status === 201 && loser.body.id === fresh[0]?.body.id),
      'the other is told it is in flight, or replayed',
    );
    assert.equal(await t.services.simulator.placementCount(), placements + 1);
    assert.equal((await callsOf(c)).length, 1);
  });

  it('scopes keys to the customer: two customers sending the same key and body each get, and replay, their own call', async () => {
    const one = await newCaller(t);
    const two = await newCaller(t);
    // The same body but for each customer's own assistant (an assistant belongs to one customer).
    const firstOne = await placeCall(t, one, body, { idempotencyKey: 'shared-name' });
    const firstTwo = await placeCall(t, two, body, { idempotencyKey: 'shared-name' });
    for (const res of [firstOne, firstTwo]) {
      assert.equal(res.status, 201, res.text);
      assert.equal(res.headers['idempotent-replayed'], undefined);
    }
    assert.notEqual(firstOne.body.id, firstTwo.body.id);
    assert.deepEqual(await callsOf(one), [firstOne.body.id]);
    assert.deepEqual(await callsOf(two), [firstTwo.body.id]);
    // Retries in both orders: a lookup that ignored the customer would hand one of them the other's record.
    const againTwo = await placeCall(t, two, body, { idempotencyKey: 'shared-name' });
    const againOne = await placeCall(t, one, body, { idempotencyKey: 'shared-name' });
    for (const [again, first] of [
      [againOne, firstOne],
      [againTwo, firstTwo],
    ] as const) {
      assert.equal(again.status, 201, again.text);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.text, first.text, 'its own first response, never the other customer’s');
    }
    assert.deepEqual(await callsOf(one), [firstOne.body.id]);
    assert.deepEqual(await callsOf(two), [firstTwo.body.id]);
  });

  it('a failure or a resumed retry of one customer never touches another customer’s record under the same key', async () => {
    const one = await newCaller(t);
    const two = await newCaller(t);
    const unavailable = async <T>(f: () => Promise<T>): Promise<T> => {
      t.services.simulator.configure({ fault: 'unavailable' });
      try {
        return await f();
      } finally {
        t.services.simulator.configure({ fault: 'none' });
      }
    };
    // Both fail at the same instant under the same key; one's resumption must leave two's record failed.
    for (const c of [one, two]) {
      assert.equal(
        (await unavailable(() => placeCall(t, c, body, { idempotencyKey: 'both-failed' }))).status,
        502,
      );
    }
    const retryOne = await placeCall(t, one, body, { idempotencyKey: 'both-failed' });
    const retryTwo = await placeCall(t, two, body, { idempotencyKey: 'both-failed' });
    for (const [retry, c] of [
      [retryOne, one],
      [retryTwo, two],
    ] as const) {
      assert.equal(retry.status, 201, retry.text);
      assert.deepEqual(await callsOf(c), [retry.body.id]);
    }
    // Two completed; one's failure under the same key must not mark two's record failed.
    const done = await placeCall(t, two, body, { idempotencyKey: 'one-fails' });
    assert.equal(done.status, 201);
    assert.equal(
      (await unavailable(() => placeCall(t, one, body, { idempotencyKey: 'one-fails' }))).status,
      502,
    );
    const replay = await placeCall(t, two, body, { idempotencyKey: 'one-fails' });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.text, done.text);
  });

  it('keeps keys 24 hours: a day later the same key places a new call', async () => {
    const c = await newCaller(t);
    const first = await placeCall(t, c, body, { idempotencyKey: 'daily' });
    t.clock.advance(IDEMPOTENCY_RETENTION_MS - 1000);
    assert.equal(
      (await placeCall(t, c, body, { idempotencyKey: 'daily' })).headers['idempotent-replayed'],
      'true',
    );
    t.clock.advance(2000);
    const later = await placeCall(t, c, body, { idempotencyKey: 'daily' });
    assert.equal(later.status, 201);
    assert.equal(later.headers['idempotent-replayed'], undefined);
    assert.notEqual(later.body.id, first.body.id);
  });

  it('after a provider failure, a retry with the same key places the call under the same id, once', async () => {
    const c = await newCaller(t);
    t.services.simulator.configure({ fault: 'unavailable' });
    try {
      const down = await placeCall(t, c, body, { idempotencyKey: 'flaky' });
      assert.equal(down.status, 502);
      assert.match(down.body.detail, /same Idempotency-Key/);
    } finally {
      t.services.simulator.configure({ fault: 'none' });
    }
    const record = await t.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('customer_id', '=', c.customerId)
      .executeTakeFirst();
    assert.equal(record?.state, 'failed');
    const retry = await placeCall(t, c, body, { idempotencyKey: 'flaky' });
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.headers['idempotent-replayed'], undefined);
    assert.equal(retry.body.id, record?.resource_id, 'the provider deduplicates on this id');
    assert.deepEqual(await callsOf(c), [retry.body.id]);
  });

  it('lets a retry take over a request abandoned in flight, without a second call upstream', async () => {
    const c = await newCaller(t);
    const withCallback = { ...body, callback_url: 'https://hooks.example.com/cb' };
    const placements = await t.services.simulator.placementCount();
    const gate = providerGate(t);
    const first = placeCall(t, c, withCallback, { idempotencyKey: 'orphan' });
    await gate.held(1);
    const early = await placeCall(t, c, withCallback, { idempotencyKey: 'orphan' });
    assert.equal(early.status, 409, 'in flight and not yet stale');
    // The first request looks dead once its record is older than the staleness limit.
    t.clock.advance(IN_FLIGHT_STALE_MS + 1000);
    const retry = placeCall(t, c, withCallback, { idempotencyKey: 'orphan' });
    await gate.held(2);
    gate.open();
    const [a, b] = await Promise.all([first, retry]);
    assert.deepEqual([a.status, b.status], [201, 201]);
    assert.equal(b.body.id, a.body.id, 'the retry resumed the same call id');
    assert.equal(await t.services.simulator.placementCount(), placements + 1, 'the provider placed it once');
    assert.equal((await callsOf(c)).length, 1);
    const queued = await t.db
      .selectFrom('callback_notifications')
      .select('event')
      .where('call_id', '=', a.body.id)
      .execute();
    assert.deepEqual(queued, [{ event: 'call.queued' }], 'one call.queued notification');
  });

  it('refuses a malformed Idempotency-Key header and ignores keys on dry runs', async () => {
    const c = await newCaller(t);
    const bad = await placeCall(t, c, body, { idempotencyKey: 'ü'.repeat(3) });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.issues[0].path, ['header', 'idempotency-key']);
    const long = await placeCall(t, c, body, { idempotencyKey: 'k'.repeat(256) });
    assert.equal(long.status, 422);
    const dry = await dryRunCall(t, c, body, { idempotencyKey: 'dry' });
    assert.equal(dry.status, 200);
    const real = await placeCall(t, c, body, { idempotencyKey: 'dry' });
    assert.equal(real.status, 201);
    assert.equal(real.headers['idempotent-replayed'], undefined);
  });

  it('hashes bodies canonically: key order does not matter, values do', () => {
    assert.equal(
      requestHash({ a: 1, b: { c: 2, d: [1, 2] } }),
      requestHash({ b: { d: [1, 2], c: 2 }, a: 1 }),
    );
    assert.notEqual(requestHash({ a: 1 }), requestHash({ a: '1' }));
    assert.notEqual(requestHash({ d: [1, 2] }), requestHash({ d: [2, 1] }));
  });
});
