import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { insertCalls } from '../calls/calls.repository.ts';
import { newCallRow } from '../calls/new-call.ts';
import type { AssistantRow } from '../db/tables/assistants.table.ts';
import { newUuid } from '../ids.ts';
import { newAssistant } from '../testing/outbound.fixtures.ts';
import { newCustomer, startTestApp, type TestApp, type TestCustomer } from '../testing/test-app.ts';
import { purgeExpiredCalls, startCallRetention } from './call-retention.ts';

const DAY = 86_400_000;

/** The retention loop on a ManualClock: what goes, what stays, in batches; and what one batch costs. */
describe('call retention', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const daysAgo = (n: number) => new Date(t.clock.now().getTime() - n * DAY);

  /** Finished calls of the customer that started `days` ago; with `tracking`, their lifecycle row in that state. */
  async function plant(
    customerId: string,
    assistant: AssistantRow,
    n: number,
    days: number,
    tracking: 'done' | 'pending' | null = 'done',
  ): Promise<string[]> {
    const startedAt = daysAgo(days);
    const rows = Array.from({ length: n }, (_, i) =>
      newCallRow({
        id: newUuid(),
        customer_id: customerId,
        assistant_id: assistant.id,
        direction: 'outbound',
        status: 'completed',
        started_at: new Date(startedAt.getTime() + i * 1000),
        from_number: '+14155550102',
        to_number: '+14155550199',
        created_at: startedAt,
        updated_at: startedAt,
      }),
    );
    await insertCalls(t.db, rows);
    const ids = rows.map((r) => r.id);
    if (tracking) {
      await sql`insert into call_lifecycle (call_id, customer_id, provider_call_id, processing_state, created_at, updated_at)
        select id, ${customerId}, 'prov-' || id, ${tracking}, ${startedAt}, ${startedAt}
        from unnest(${ids}::uuid[]) as c(id)`.execute(t.db);
    }
    return ids;
  }

  const remaining = async (ids: string[]) =>
    ids.length === 0
      ? []
      : (await t.db.selectFrom('calls').select('id').where('id', 'in', ids).execute())
          .map((r) => r.id)
          .sort();

  async function customerWithAssistant(): Promise<TestCustomer & { assistant: AssistantRow }> {
    const c = await newCustomer(t);
    return { ...c, assistant: await newAssistant(t, c.customerId) };
  }

  it("deletes each customer's finished calls past its period, oldest first in batches, its test twin's too; nothing else", async () => {
    const a = await customerWithAssistant();
    const forever = await customerWithAssistant();
    await t.services.customers.setCallRetention(a.customerId, 30);
    await t.services.keys.createKey({
      customerId: a.customerId,
      name: 't',
      scopes: ['read_calls'],
      mode: 'test',
    });
    const twin = await t.db
      .selectFrom('customers')
      .select('id')
      .where('live_customer_id', '=', a.customerId)
      .executeTakeFirstOrThrow();

    const old = await plant(a.customerId, a.assistant, 5, 40);
    const recent = await plant(a.customerId, a.assistant, 2, 10);
    const unfinished = await plant(a.customerId, a.assistant, 1, 45, 'pending');
    const history = await plant(a.customerId, a.assistant, 1, 50, null);
    const twinOld = await plant(twin.id, a.assistant, 2, 31);
    const keptForever = await plant(forever.customerId, forever.assistant, 3, 400);
    // Idempotency records naming an expired and a kept call; an event of an expired call.
    for (const [key, resource] of [
      ['expired', old[0]],
      ['kept', recent[0]],
    ] as const) {
      await t.db
        .insertInto('idempotency_keys')
        .values({
          customer_id: a.customerId,
          key,
          request_hash: 'h',
          state: 'completed',
          resource_id: resource ?? '',
          response_status: 201,
          response_body: '{}',
          created_at: t.clock.now(),
          updated_at: t.clock.now(),
        })
        .execute();
    }

    const batches: { customerId: string; n: number }[] = [];
    const removal = t.services.callRemoval;
    const report = await purgeExpiredCalls({
      customers: t.services.customers,
      removal: {
        async deleteExpiredBatch(customerId, before, limit) {
          const n = await removal.deleteExpiredBatch(customerId, before, limit);
          batches.push({ customerId, n });
          return n;
        },
        purgeTombstones: removal.purgeTombstones,
      },
      clock: t.clock,
      batch: 2,
      pauseMs: 0,
    });

    assert.deepEqual(await remaining([...old, ...history, ...twinOld]), [], 'past 30 days: gone');
    assert.deepEqual(await remaining(recent), [...recent].sort(), 'within 30 days: kept');
    assert.deepEqual(await remaining(unfinished), unfinished, 'not finished: left for a later run');
    assert.deepEqual(
      await remaining(keptForever),
      [...keptForever].sort(),
      'a customer keeping calls for ever',
    );
    assert.deepEqual(
      batches.filter((b) => b.customerId === a.customerId).map((b) => b.n),
      [2, 2, 2, 0],
      'six calls in batches of two, then an empty look',
    );
    assert.deepEqual(
      batches.filter((b) => b.customerId === twin.id).map((b) => b.n),
      [2, 0],
      'the twin follows its customer',
    );
    assert.ok(!batches.some((b) => b.customerId === forever.customerId), 'never looked at');
    assert.ok(report.calls >= 8 && report.customers >= 2, JSON.stringify(report));
    const idempotency = await t.db
      .selectFrom('idempotency_keys')
      .select('key')
      .where('customer_id', '=', a.customerId)
      .execute();
    assert.deepEqual(
      idempotency.map((r) => r.key),
      ['kept'],
    );

    // Moving on: the recent ones come due in their turn.
    t.clock.advance(21 * DAY);
    await purgeExpiredCalls({ customers: t.services.customers, removal, clock: t.clock, pauseMs: 0 });
    assert.deepEqual(await remaining(recent), []);
  });

  it('runs as a loop in the worker until stopped, logging what it deleted', async () => {
    const a = await customerWithAssistant();
    await t.services.customers.setCallRetention(a.customerId, 7);
    const old = await plant(a.customerId, a.assistant, 3, 8);
    const logged: object[] = [];
    const loop = startCallRetention(
      {
        customers: { retentionTargets: async () => [{ customerId: a.customerId, days: 7 }] },
        removal: t.services.callRemoval,
        clock: t.clock,
        pauseMs: 0,
        logger: { error: (obj) => assert.fail(JSON.stringify(obj)), info: (obj) => logged.push(obj) },
      },
      10,
    );
    try {
      for (let i = 0; i < 200 && (await remaining(old)).length > 0; i++)
        await new Promise((r) => setTimeout(r, 10));
    } finally {
      await loop.stop();
    }
    assert.deepEqual(await remaining(old), []);
    assert.ok(
      logged.some((o) => (o as { calls?: number }).calls === 3),
      JSON.stringify(logged),
    );
  });

  it('forgets tombstones after 30 days', async () => {
    const a = await customerWithAssistant();
    const [id = ''] = await plant(a.customerId, a.assistant, 1, 0);
    await t.services.callRemoval.deleteCall(a.customerId, id);
    const tombstone = () =>
      t.db.selectFrom('deleted_calls').select('call_id').where('call_id', '=', id).execute();
    assert.equal((await tombstone()).length, 1);
    await t.services.callRemoval.purgeTombstones(new Date(t.clock.now().getTime() + 29 * DAY));
    assert.equal((await tombstone()).length, 1, 'kept within 30 days');
    await t.services.callRemoval.purgeTombstones(new Date(t.clock.now().getTime() + 31 * DAY));
    assert.equal((await tombstone()).length, 0);
  });

  it('one batch: 500 calls with everything of theirs (about 7,500 rows), timed', async (ctx) => {
    const a = await customerWithAssistant();
    await t.services.customers.setCallRetention(a.customerId, 30);
    const sub = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: a.key,
      body: { url: 'https://example.com/retention', events: ['call.completed'] },
    });
    assert.equal(sub.status, 201, sub.text);
    // Never claimed by a worker of another test: an inactive subscription's deliveries are not sent.
    await t.db
      .updateTable('webhook_subscriptions')
      .set({ is_active: false })
      .where('id', '=', sub.body.id)
      .execute();
    const runs = 3;
    const ids = await plant(a.customerId, a.assistant, 500 * runs, 40);
    const at = daysAgo(40);
    await sql`insert into events (id, customer_id, type, call_id, sequence, data, occurred_at)
      select gen_random_uuid(), ${a.customerId}, 'call.completed', c.id, s,
        '{"call_id": "x", "to": "+14155550199"}'::jsonb, ${at}
      from unnest(${ids}::uuid[]) as c(id), generate_series(1, 3) as s`.execute(t.db);
    await sql`insert into webhook_deliveries (id, event_id, subscription_id, customer_id, status, next_attempt_at, created_at)
      select gen_random_uuid(), e.id, ${sub.body.id}, ${a.customerId}, 'pending', ${at}, ${at}
      from events e where e.call_id = any(${ids}::uuid[])`.execute(t.db);
    await sql`insert into webhook_attempts (delivery_id, subscription_id, attempted_at, status_code, latency_ms, response_excerpt)
      select d.id, d.subscription_id, ${at}, 500, 12, 'call +14155550199'
      from webhook_deliveries d where d.subscription_id = ${sub.body.id}`.execute(t.db);
    await sql`insert into transcripts (call_id, customer_id, conversation_id, segments, created_at)
      select c.id, ${a.customerId}, 'conv', '[{"speaker": "caller", "text": "Hi", "timestamp": "2026-01-01T00:00:00Z"}]'::jsonb, ${at}
      from unnest(${ids}::uuid[]) as c(id)`.execute(t.db);
    await sql`insert into call_insights (call_id, name, customer_id, result, position, created_at)
      select c.id, 'insight_' || s, ${a.customerId}, '1'::jsonb, s, ${at}
      from unnest(${ids}::uuid[]) as c(id), generate_series(1, 3) as s`.execute(t.db);
    await sql`insert into spend_reservations (call_id, api_key_id, customer_id, day, amount_usd, state, created_at)
      select c.id, ${a.keyId}, ${a.customerId}, ${at.toISOString().slice(0, 10)}::date, 0.09, 'settled', ${at}
      from unnest(${ids}::uuid[]) as c(id)`.execute(t.db);

    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      const n = await t.services.callRemoval.deleteExpiredBatch(a.customerId, daysAgo(30));
      times.push(Math.round(performance.now() - started));
      assert.equal(n, 500);
    }
    const backend = process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite';
    ctx.diagnostic(`${backend}: one batch of 500 calls (about 7,500 rows) took ${times.join(', ')} ms`);
    assert.deepEqual(await remaining(ids), []);
    const left = await t.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('subscription_id', '=', sub.body.id)
      .execute();
    assert.equal(left.length, 0, 'their deliveries and attempts went with them');
    const spend = await t.db
      .selectFrom('spend_reservations')
      .select('call_id')
      .where('customer_id', '=', a.customerId)
      .execute();
    assert.equal(spend.length, 500 * runs, 'the spend ledger is kept');
    // Generous: a batch must stay short enough not to hold the API up (docs/call-data.md has the figures).
    assert.ok(Math.max(...times) < 5_000, `${times.join(', ')} ms`);
  });
});
