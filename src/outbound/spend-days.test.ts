import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../db/database.ts';
import type { Database } from '../db/index.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { type Caller, newCaller } from '../testing/outbound.fixtures.ts';
import { sendSms } from '../testing/sms.fixtures.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';
import { databaseAtMigration } from '../testing/test-database.ts';
import * as spend from './spend.repository.ts';

const DAY = '2026-05-04';
const NEXT_DAY = '2026-05-05';
const now = new Date(`${DAY}T12:00:00.000Z`);

/** Every day of the key whose total and reservations disagree; a day whose reservations all left reads 0. */
async function drift(db: Database, keyId: string): Promise<string[]> {
  const { rows } = await sql<{ day: string; total: string; summed: string }>`
    select d.day::text as day, d.amount_usd::text as total, coalesce(sum(r.amount_usd), 0)::text as summed
      from spend_days d left join spend_reservations r on r.api_key_id = d.api_key_id and r.day = d.day
      where d.api_key_id = ${keyId}
      group by d.day, d.amount_usd
      having d.amount_usd <> coalesce(sum(r.amount_usd), 0)`.execute(db);
  return rows.map((r) => `${r.day}: ${r.total} kept, ${r.summed} reserved`);
}

describe("a key's spend per day (spend_days), kept by the reservations' trigger", () => {
  let t: TestApp;
  let c: Caller;
  const calls = [randomUUID(), randomUUID(), randomUUID()] as const;
  const reserve = (callId: string, day: string, amount: string) =>
    spend.insertReservation(t.db, {
      call_id: callId,
      api_key_id: c.keyId,
      customer_id: c.customerId,
      day,
      amount_usd: amount,
      now,
    });

  before(async () => {
    t = await startTestApp();
    t.clock.set(now.toISOString());
    c = await newCaller(t);
  });
  after(() => t.close());

  // Each step, then what the daily-cap check reads for both days. The table is cumulative.
  const steps: [string, () => Promise<unknown>, string, string][] = [
    ['nothing reserved yet', async () => {}, '0', '0'],
    ['a call reserves 1.20', () => reserve(calls[0], DAY, '1.2000'), '1.2000', '0'],
    ['a second call reserves 0.60', () => reserve(calls[1], DAY, '0.6000'), '1.8000', '0'],
    ['the same call reserved again counts once', () => reserve(calls[1], DAY, '0.6000'), '1.8000', '0'],
    [
      'a call the next day has its own total',
      () => reserve(calls[2], NEXT_DAY, '0.6000'),
      '1.8000',
      '0.6000',
    ],
    [
      'the first settles at 0.35',
      () => spend.settleReservation(t.db, calls[0], '0.3500', now),
      '0.9500',
      '0.6000',
    ],
    [
      'the second is refused by the provider',
      () => spend.removeReservation(t.db, calls[1]),
      '0.3500',
      '0.6000',
    ],
    [
      'the next day settles at 0',
      () => spend.settleReservation(t.db, calls[2], '0.0000', now),
      '0.3500',
      '0.0000',
    ],
  ];
  for (const [name, step, today, tomorrow] of steps) {
    it(`${name}: ${today} today, ${tomorrow} the next day`, async () => {
      await step();
      assert.equal(await spend.spentOnDay(t.db, c.keyId, DAY), today);
      assert.equal(await spend.spentOnDay(t.db, c.keyId, NEXT_DAY), tomorrow);
      assert.deepEqual(await drift(t.db, c.keyId), []);
    });
  }

  it('follows a text message: reserved when sent, settled, and gone with the message (retention)', async () => {
    const sender = await newCaller(t);
    const today = t.clock.now().toISOString().slice(0, 10);
    const sent = await sendSms(t, sender);
    assert.equal(sent.status, 201, sent.text);
    const reserved = await spend.spentOnDay(t.db, sender.keyId, today);
    assert.ok(Number(reserved) > 0, reserved);
    await spend.settleMessageReservation(t.db, sent.body.id, '0.0079', now);
    assert.equal(await spend.spentOnDay(t.db, sender.keyId, today), '0.0079');
    await t.db.deleteFrom('sms_messages').where('id', '=', sent.body.id).execute();
    assert.equal(await spend.spentOnDay(t.db, sender.keyId, today), '0.0000');
    assert.deepEqual(await drift(t.db, sender.keyId), []);
  });

  it('is deleted with its key', async () => {
    const gone = await newCaller(t);
    await spend.insertReservation(t.db, {
      call_id: randomUUID(),
      api_key_id: gone.keyId,
      customer_id: gone.customerId,
      day: DAY,
      amount_usd: '0.6000',
      now,
    });
    await t.db.deleteFrom('customers').where('id', '=', gone.customerId).execute();
    const rows = await t.db
      .selectFrom('spend_days')
      .selectAll()
      .where('api_key_id', '=', gone.keyId)
      .execute();
    assert.deepEqual(rows, []);
  });
});

describe('migration 20261129_0800: each key-day total from the reservations already there', () => {
  let handle: DatabaseHandle;
  before(async () => {
    handle = await databaseAtMigration('20261127_0700_call_data_lifecycle');
  });
  after(() => handle.close());

  it('sums reserved and settled rows per key and day, then keeps counting', async () => {
    const db = handle.db;
    const customer = randomUUID();
    const [k1, k2] = [randomUUID(), randomUUID()];
    await sql`insert into customers (id, name, created_at) values (${customer}, 'Acme', ${now})`.execute(db);
    for (const key of [k1, k2]) {
      await sql`insert into api_keys (id, customer_id, name, prefix, scopes, daily_spend_cap_usd, allowed_countries, created_at)
        values (${key}, ${customer}, 'k', 'svc_live_x', '{}', 50, '{US}', ${now})`.execute(db);
    }
    const rows: [string, string, string, string][] = [
      [k1, DAY, '1.2000', 'reserved'],
      [k1, DAY, '0.3500', 'settled'],
      [k1, NEXT_DAY, '0.6000', 'reserved'],
      [k2, DAY, '0.0100', 'settled'],
    ];
    for (const [key, day, amount, state] of rows) {
      await sql`insert into spend_reservations (call_id, api_key_id, customer_id, day, amount_usd, state, created_at)
        values (${randomUUID()}, ${key}, ${customer}, ${day}, ${amount}, ${state}, ${now})`.execute(db);
    }
    await migrateToLatest(db);
    const spent = (key: string, day: string) => spend.spentOnDay(db, key, day);
    assert.deepEqual(
      [await spent(k1, DAY), await spent(k1, NEXT_DAY), await spent(k2, DAY), await spent(k2, NEXT_DAY)],
      ['1.5500', '0.6000', '0.0100', '0'],
    );
    await sql`insert into spend_reservations (call_id, api_key_id, customer_id, day, amount_usd, state, created_at)
      values (${randomUUID()}, ${k2}, ${customer}, ${DAY}, '0.6000', 'reserved', ${now})`.execute(db);
    assert.equal(await spent(k2, DAY), '0.6100');
    assert.deepEqual(await drift(db, k1), []);
    assert.deepEqual(await drift(db, k2), []);
  });
});
