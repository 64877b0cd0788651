import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { openDatabase } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { vacuumCounts, vacuumCountsOnce } from '../testing/vacuum-counts.ts';
import { QUEUE_TABLES, startEmbeddedVacuum } from './embedded-vacuum.ts';

describe('vacuums on PGlite, which has no autovacuum', () => {
  it('the queues every minute, the whole database every hour', async () => {
    const handle = await openDatabase({});
    await migrateToLatest(handle.db);
    mock.timers.enable({ apis: ['setInterval'] });
    const loops = startEmbeddedVacuum(handle.db, { error: (obj) => assert.fail(JSON.stringify(obj)) });
    try {
      assert.deepEqual(
        Object.values(await vacuumCounts(handle.db)).filter((n) => n > 0),
        [],
        'nothing at start',
      );
      mock.timers.tick(60_000);
      const minute = await vacuumCountsOnce(handle.db, (c) => QUEUE_TABLES.every((t) => c[t] === 1));
      for (const table of QUEUE_TABLES) assert.equal(minute[table], 1, table);
      assert.equal(minute.calls, 0, 'the other tables wait for the hour');

      // Minute by minute: a loop never starts a run while the one before goes on, so each waits for its vacuum.
      for (let minute = 2; minute < 60; minute++) {
        mock.timers.tick(60_000);
        await vacuumCountsOnce(handle.db, (c) => c.webhook_deliveries === minute);
      }
      mock.timers.tick(60_000);
      const hour = await vacuumCountsOnce(handle.db, (c) => c.calls === 1 && c.webhook_deliveries === 61);
      assert.equal(hour.calls, 1);
      assert.equal(hour.api_keys, 1);
      assert.equal(hour.webhook_deliveries, 61, 'sixty minutes, and the hour');
    } finally {
      await Promise.all(loops.map((l) => l.stop()));
      mock.timers.reset();
      await handle.close();
    }
  });
});
