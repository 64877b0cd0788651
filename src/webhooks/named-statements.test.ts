import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../db/database.ts';
import { testDatabase, testDatabaseUrlForChild } from '../testing/test-database.ts';
import { writeOutcomes } from './attempts.repository.ts';
import { claimDue } from './deliveries.repository.ts';

describe('the delivery worker’s statements', () => {
  // Planning them for each claim and each batch cost PostgreSQL 12 and 6 µs per delivery (docs/performance.md).
  it('the claim and the outcomes go out as named statements, parsed once per connection', async () => {
    const shared = await testDatabase();
    // One connection, so that the statements it lists are the ones this test sent (PGlite has one session anyway).
    const url = testDatabaseUrlForChild();
    const one = url ? await openDatabase({ url, poolSize: 1 }) : null;
    const db = one?.db ?? shared.db;
    try {
      for (let i = 0; i < 2; i++) {
        await claimDue(db, new Date(), { limit: 10, rooms: new Map(), others: 5 }, 60_000);
        await writeOutcomes(db, [], [], []);
      }
      const { rows } = await sql<{ statement: string }>`
        select statement from pg_prepared_statements`.execute(db);
      const named = (re: RegExp) => rows.filter((r) => re.test(r.statement)).length;
      assert.equal(named(/update "webhook_deliveries" q\s+set leased_until/), 1, 'the claim, once');
      assert.equal(named(/insert into webhook_attempts/), 1, 'the outcomes, once');
    } finally {
      await one?.close();
    }
  });
});
