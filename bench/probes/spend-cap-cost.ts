/**
 * What the daily-cap check costs as one key's day fills up: `placements` reservations of one key in one day, each in
 * the placing transaction's own steps (lock the key, read the day's spend, insert the reservation, commit), timed
 * per block of 1,000. Two scratch schemas, their placements interleaved on the same machine: `spend_days`, the
 * running total kept by the trigger (migration 20261129_0800), and `sum`, the same schema without that trigger,
 * reading the day as the code did before (the sum of the day's reservations). Without DATABASE_URL, two PGlite
 * databases in memory. docs/performance.md, the twenty-first section.
 *
 *   [DATABASE_URL=postgres://…] node bench/probes/spend-cap-cost.ts [--placements 10000]
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { type Database, type DatabaseHandle, migrateToLatest, openDatabase } from '../../src/db/index.ts';
import { lockKeyForSpend } from '../../src/keys/index.ts';
import { insertReservation, spentOnDay } from '../../src/outbound/spend.repository.ts';
import { inSchema } from '../../src/testing/test-database.ts';

const { values } = parseArgs({ options: { placements: { type: 'string', default: '10000' } } });
const placements = Number(values.placements);
const url = process.env.DATABASE_URL;
const BLOCK = 1000;
const DAY = '2026-05-04';

/** The read the cap check made before spend_days: every reservation of the key's day, summed. */
async function summedOnDay(db: Database, keyId: string, day: string): Promise<string> {
  const { rows } = await sql<{ total: string }>`select coalesce(sum(amount_usd), 0)::text as total
    from spend_reservations where api_key_id = ${keyId} and day = ${day}`.execute(db);
  return rows[0]?.total ?? '0';
}

type Variant = { name: string; handle: DatabaseHandle; keyId: string; read: typeof spentOnDay; ms: number[] };

const admin = url ? await openDatabase({ url, poolSize: 1 }) : null;
const schemaOf = (name: string) => `spend_probe_${process.pid}_${name}`;
const variants: Variant[] = [];
try {
  for (const [name, read] of [
    ['spend_days', spentOnDay],
    ['sum', summedOnDay],
  ] as const) {
    if (admin) await sql.raw(`create schema ${schemaOf(name)}`).execute(admin.db);
    const handle = await openDatabase(url ? { url: inSchema(url, schemaOf(name)), poolSize: 1 } : {});
    await migrateToLatest(handle.db);
    if (name === 'sum')
      await sql`drop trigger spend_reservations_days on spend_reservations`.execute(handle.db);
    const customer = randomUUID();
    const keyId = randomUUID();
    await sql`insert into customers (id, name, created_at) values (${customer}, 'probe', now())`.execute(
      handle.db,
    );
    await sql`insert into api_keys (id, customer_id, name, prefix, scopes, daily_spend_cap_usd, allowed_countries,
        created_at) values (${keyId}, ${customer}, 'probe', 'svc_live_probe', '{}', 9999999999, '{US}', now())`.execute(
      handle.db,
    );
    variants.push({ name, handle, keyId, read, ms: [] });
  }
  for (let i = 0; i < placements; i++) {
    for (const v of i % 2 === 0 ? variants : [...variants].reverse()) {
      const t0 = performance.now();
      await v.handle.db.transaction().execute(async (tx) => {
        const key = await lockKeyForSpend(tx, v.keyId);
        if (!key) throw new Error('the probe key is gone');
        await v.read(tx, v.keyId, DAY);
        await insertReservation(tx, {
          call_id: randomUUID(),
          api_key_id: v.keyId,
          customer_id: key.customer_id,
          day: DAY,
          amount_usd: '0.1500',
          now: new Date(),
        });
      });
      v.ms.push(performance.now() - t0);
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const blocks = Array.from({ length: Math.ceil(placements / BLOCK) }, (_, b) => b * BLOCK);
  for (const v of variants) {
    const spent = await v.read(v.handle.db, v.keyId, DAY);
    console.log(
      JSON.stringify({
        variant: v.name,
        spent,
        msPerPlacementByThousand: blocks.map((b) => Math.round(mean(v.ms.slice(b, b + BLOCK)) * 1000) / 1000),
      }),
    );
  }
} finally {
  for (const v of variants) {
    await v.handle.close();
    if (admin) await sql.raw(`drop schema ${schemaOf(v.name)} cascade`).execute(admin.db);
  }
  await admin?.close();
}
