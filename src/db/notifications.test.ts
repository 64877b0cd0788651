import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { testDatabase } from '../testing/test-database.ts';
import { openDatabase } from './database.ts';
import { notify, postgresNotifications } from './notifications.ts';

/** Resolves with the payloads heard until `until` is heard. */
function hear(listen: (handler: (payload: string) => void) => () => void, until: string) {
  const heard: string[] = [];
  let stop = () => {};
  const done = new Promise<string[]>((resolve) => {
    stop = listen((payload) => {
      heard.push(payload);
      if (payload === until) resolve(heard);
    });
  });
  return done.finally(() => stop());
}

describe('notifications', () => {
  it('delivers what a committed transaction sent, and nothing of a rolled-back one', async () => {
    const { db, notifications } = await testDatabase();
    const heard = hear((h) => notifications.listen('api_keys_changed', h), 'after');
    // Over PostgreSQL the listening connection opens with the first listener.
    while (!notifications.connected()) await new Promise((resolve) => setImmediate(resolve));
    await db
      .transaction()
      .execute(async (tx) => {
        await notify(tx, 'api_keys_changed', 'rolled back');
        throw new Error('roll back');
      })
      .catch(() => {});
    await db.transaction().execute((tx) => notify(tx, 'api_keys_changed', 'committed'));
    await notify(db, 'api_keys_changed', 'after');
    assert.deepEqual(await heard, ['committed', 'after']);
  });

  it('PGlite: closes cleanly (its own unsubscribe would send an unquoted UNLISTEN of a name with a colon)', async () => {
    const handle = await openDatabase({});
    await handle.close();
  });

  const url = process.env.DATABASE_URL;
  it('PostgreSQL: a dropped listening connection is reported as a gap, reconnected, and heard from again', {
    skip: url ? false : 'needs DATABASE_URL',
  }, async () => {
    const { db } = await testDatabase();
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
    const schema = rows[0]?.schema ?? '';
    const n = postgresNotifications(
      () => new pg.Client({ connectionString: url, options: `-c search_path=${schema}` }),
      { retryMs: 20 },
    );
    try {
      let gaps = 0;
      let gapSeen = () => {};
      const onGap = () => {
        gaps += 1;
        gapSeen();
      };
      const waitGap = () => new Promise<void>((resolve) => (gapSeen = resolve));
      const connectedOnce = waitGap();
      n.listen('callbacks_due', () => {}, onGap);
      await connectedOnce;
      assert.equal(n.connected(), true);

      const lostAndBack = waitGap().then(waitGap);
      await sql`select pg_terminate_backend(pid) from pg_stat_activity
          where query like ${`listen "${schema}:%`}`.execute(db);
      await lostAndBack;
      assert.equal(gaps, 3, 'once connected, once lost, once back');
      assert.equal(n.connected(), true);

      const heard = hear((h) => n.listen('callbacks_due', h), 'again');
      await notify(db, 'callbacks_due', 'again');
      assert.deepEqual(await heard, ['again']);
    } finally {
      await n.close();
    }
  });
});
