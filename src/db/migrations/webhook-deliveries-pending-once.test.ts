import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { databaseAtMigration } from '../../testing/test-database.ts';
import type { DatabaseHandle } from '../database.ts';
import { migrateToLatest } from '../migrate.ts';

describe('migration 20261121_0050: one pending delivery per event and subscription', () => {
  // A database of its own, stopped at the migration before, so rows can be written the old way first.
  let handle: DatabaseHandle;
  before(async () => {
    handle = await databaseAtMigration('20261121_0040_dashboard');
  });
  after(() => handle.close());

  it('keeps the copy due first of those queued twice before, then refuses a second pending copy', async () => {
    const { db } = handle;
    const t0 = new Date('2026-11-21T00:00:00.000Z');
    const at = (s: number) => new Date(t0.getTime() + s * 1000);
    const customer = randomUUID();
    await sql`insert into customers (id, name, created_at) values (${customer}, 'Acme', ${t0})`.execute(db);
    const [e1, e2] = [randomUUID(), randomUUID()];
    for (const [i, id] of [e1, e2].entries()) {
      await sql`insert into events (id, customer_id, type, call_id, sequence, data, occurred_at)
        values (${id}, ${customer}, 'call.completed', null, ${i}, '{}', ${t0})`.execute(db);
    }
    await sql`insert into webhook_subscriptions (id, customer_id, url, events, events_key, secret_encrypted, created_at)
      values ('sub_a', ${customer}, 'https://example.com/hook', '{call.completed}', 'call.completed', 'x', ${t0})`.execute(
      db,
    );
    const delivery = (eventId: string | undefined, status: string, dueIn: number) => {
      const id = randomUUID();
      return {
        id,
        insert: sql`insert into webhook_deliveries (id, event_id, subscription_id, customer_id, status, next_attempt_at, created_at)
          values (${id}, ${eventId}, 'sub_a', ${customer}, ${status}, ${at(dueIn)}, ${t0})`,
      };
    };
    const rows = [
      delivery(e1, 'pending', 20),
      delivery(e1, 'pending', 10),
      delivery(e1, 'pending', 30),
      delivery(e1, 'delivered', 0),
      delivery(e2, 'pending', 40),
    ];
    for (const r of rows) await r.insert.execute(db);

    await migrateToLatest(db);

    const left = await sql<{
      id: string;
    }>`select id from webhook_deliveries order by next_attempt_at`.execute(db);
    assert.deepEqual(
      left.rows.map((r) => r.id),
      [rows[3]?.id, rows[1]?.id, rows[4]?.id],
      'the delivered copy, the pending copy due first, and the other event',
    );
    await assert.rejects(delivery(e1, 'pending', 50).insert.execute(db), /duplicate key|unique/);
    await delivery(e1, 'failed', 50).insert.execute(db);
  });
});
