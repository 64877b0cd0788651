import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { testDatabase } from '../../testing/test-database.ts';

describe('the outbox is vacuumed often', () => {
  it('webhook_deliveries carries its own autovacuum thresholds (1 % or 1,000 dead rows) and room on each page', async () => {
    const { db } = await testDatabase();
    const { rows } = await sql<{ reloptions: string[] | null }>`
      select reloptions from pg_class where oid = 'webhook_deliveries'::regclass`.execute(db);
    assert.deepEqual([...(rows[0]?.reloptions ?? [])].sort(), [
      'autovacuum_vacuum_scale_factor=0.01',
      'autovacuum_vacuum_threshold=1000',
      'fillfactor=70',
    ]);
  });
});
