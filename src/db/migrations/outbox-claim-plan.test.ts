import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { databaseAtMigration } from '../../testing/test-database.ts';
import type { Database } from '../database.ts';
import { migrateToLatest } from '../migrate.ts';

const statisticsOf = async (db: Database) => {
  const { rows } = await sql<{ attname: string }>`
    select attname from pg_stats
    where schemaname = current_schema() and tablename = 'webhook_deliveries'`.execute(db);
  return new Set(rows.map((r) => r.attname));
};

describe('no statistics on the outbox’s status', () => {
  it('drops those an earlier ANALYZE took, keeps the rows, and ANALYZE takes none again', async () => {
    const handle = await databaseAtMigration('20261129_0800_spend_days');
    const { db } = handle;
    try {
      await sql`insert into customers (id, name, created_at) values (gen_random_uuid(), 'stats', now())`.execute(
        db,
      );
      await sql`
        insert into webhook_subscriptions (id, customer_id, url, events, events_key, secret_encrypted, created_at)
        select 'sub_stats', id, 'https://hooks.example.com/', '{call.completed}', 'k', 'sealed', now()
        from customers`.execute(db);
      await sql`
        insert into events (id, customer_id, type, sequence, data, occurred_at)
        select gen_random_uuid(), id, 'call.completed', g, '{}', now() from customers, generate_series(1, 50) g`.execute(
        db,
      );
      await sql`
        insert into webhook_deliveries (id, event_id, subscription_id, customer_id, status, next_attempt_at, created_at)
        select gen_random_uuid(), id, 'sub_stats', customer_id, case when sequence % 5 = 0 then 'pending' else 'delivered' end,
          now(), now()
        from events`.execute(db);
      await sql`analyze webhook_deliveries`.execute(db);
      assert.ok(
        (await statisticsOf(db)).has('status'),
        'the old migrations leave ANALYZE its sample of status',
      );

      await migrateToLatest(db);
      assert.equal((await statisticsOf(db)).has('status'), false, 'the sample taken before is gone');
      const { rows } = await sql<{ pending: number; all: number }>`
        select count(*) filter (where status = 'pending')::int as pending, count(*)::int as all
        from webhook_deliveries`.execute(db);
      assert.deepEqual(rows[0], { pending: 10, all: 50 });

      await sql`analyze webhook_deliveries`.execute(db);
      const after = await statisticsOf(db);
      assert.equal(after.has('status'), false, 'and ANALYZE takes none');
      assert.ok(after.has('subscription_id'), 'the other columns keep theirs');
    } finally {
      await handle.close();
    }
  });
});
