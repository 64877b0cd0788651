import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { statementCounter } from '../testing/statements.ts';
import { testDatabase } from '../testing/test-database.ts';
import { migrateToLatest } from './migrate.ts';

describe('migrations at start', () => {
  it('when every known migration is applied, one read and no migrator (no lock, no table checks)', async () => {
    const { db } = await testDatabase();
    const counter = statementCounter();
    assert.deepEqual(await migrateToLatest(db.withPlugin(counter.plugin)), []);
    assert.equal(counter.take(), 2, 'the schema, then the applied list');
  });

  it('an applied migration this code does not know goes to the migrator, which refuses it', async () => {
    const { db } = await testDatabase();
    await sql`insert into kysely_migration (name, timestamp) values ('99999999_from_the_future', now()::text)`.execute(
      db,
    );
    try {
      await assert.rejects(migrateToLatest(db), /corrupted migrations/);
    } finally {
      await sql`delete from kysely_migration where name = '99999999_from_the_future'`.execute(db);
    }
  });
});
