import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { sql } from 'kysely';
import { type Database, openDatabase } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { testDatabase } from '../testing/test-database.ts';
import { vacuumCounts, vacuumCountsOnce } from '../testing/vacuum-counts.ts';
import { autovacuumRuns, QUEUE_TABLES, startOwnVacuum } from './own-vacuum.ts';

/** A fresh PGlite, the loops started on it under fake timers, and everything stopped after `body`. */
async function withOwnVacuum(
  kind: 'pglite' | 'postgres',
  runs: (() => Promise<boolean>) | undefined,
  body: (db: Database, warnings: string[]) => Promise<void>,
): Promise<void> {
  const handle = await openDatabase({});
  await migrateToLatest(handle.db);
  const warnings: string[] = [];
  const logger = {
    error: (obj: object) => assert.fail(JSON.stringify(obj)),
    warn: (_obj: object, msg: string) => warnings.push(msg),
  };
  mock.timers.enable({ apis: ['setInterval'] });
  const loops = startOwnVacuum(handle.db, kind, logger, runs);
  try {
    await body(handle.db, warnings);
  } finally {
    await Promise.all(loops.map((l) => l.stop()));
    mock.timers.reset();
    await handle.close();
  }
}

describe('the vacuums autovacuum would run, where it does not', () => {
  it('on PGlite, which has no autovacuum: the queues every minute, the whole database every hour', async () => {
    await withOwnVacuum('pglite', undefined, async (db) => {
      assert.deepEqual(
        Object.values(await vacuumCounts(db)).filter((n) => n > 0),
        [],
        'nothing at start',
      );
      mock.timers.tick(60_000);
      const minute = await vacuumCountsOnce(db, (c) => QUEUE_TABLES.every((t) => c[t] === 1));
      for (const table of QUEUE_TABLES) assert.equal(minute[table], 1, table);
      assert.equal(minute.calls, 0, 'the other tables wait for the hour');

      // Minute by minute: a loop never starts a run while the one before goes on, so each waits for its vacuum.
      for (let minute = 2; minute < 60; minute++) {
        mock.timers.tick(60_000);
        await vacuumCountsOnce(db, (c) => c.webhook_deliveries === minute);
      }
      mock.timers.tick(60_000);
      const hour = await vacuumCountsOnce(db, (c) => c.calls === 1 && c.webhook_deliveries === 61);
      assert.equal(hour.calls, 1);
      assert.equal(hour.api_keys, 1);
      assert.equal(hour.webhook_deliveries, 61, 'sixty minutes, and the hour');
    });
  });

  // The decision, both ways; the database is PGlite standing in for a server, whose setting `runs` reports.
  it('on PostgreSQL: nothing while autovacuum runs; the queues every minute, with one warning, while it is off', async () => {
    let autovacuum = true;
    await withOwnVacuum(
      'postgres',
      async () => autovacuum,
      async (db, warnings) => {
        const queues = async () => (await vacuumCounts(db)).webhook_deliveries;
        // A tick that vacuums nothing leaves nothing to wait for: the setting was read once the next tick can start.
        const settle = () => new Promise((r) => setTimeout(r, 50));
        mock.timers.tick(60_000);
        await settle();
        assert.equal(await queues(), 0, 'autovacuum runs: it is left to it');

        autovacuum = false;
        for (let minute = 1; minute <= 3; minute++) {
          mock.timers.tick(60_000);
          await vacuumCountsOnce(db, (c) => c.webhook_deliveries === minute);
        }
        const counts = await vacuumCounts(db);
        for (const table of QUEUE_TABLES) assert.equal(counts[table], 3, table);
        assert.equal(counts.calls, 0, "the rest of the database is the operator's");
        assert.equal(warnings.length, 1, 'one warning while it stays off');
        assert.match(warnings[0] ?? '', /autovacuum is off/);

        autovacuum = true;
        mock.timers.tick(60_000);
        await settle();
        assert.equal(await queues(), 3, 'turned on again: left to it');
        autovacuum = false;
        mock.timers.tick(60_000);
        await vacuumCountsOnce(db, (c) => c.webhook_deliveries === 4);
        assert.equal(warnings.length, 2, 'turned off again: said again');
      },
    );
  });

  it("reads whether the server vacuums from its settings (PostgreSQL's own answer with DATABASE_URL)", async () => {
    const { db } = await testDatabase();
    const { rows } = await sql<{ autovacuum: string; track_counts: string }>`
      select current_setting('autovacuum') as autovacuum, current_setting('track_counts') as track_counts`.execute(
      db,
    );
    const setting = rows[0];
    assert.ok(setting);
    assert.equal(await autovacuumRuns(db), setting.autovacuum === 'on' && setting.track_counts === 'on');
  });
});
