import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { isDatabaseUnavailable, openDatabase } from './database.ts';

const DATABASE_URL = process.env.DATABASE_URL;

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it('recognises a database that cannot be reached, restarts or is full', () => {
    for (const error of [
      withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      withCode('read ECONNRESET', 'ECONNRESET'),
      withCode('terminating connection due to administrator command', '57P01'),
      withCode('the database system is starting up', '57P03'),
      withCode('sorry, too many clients already', '53300'),
      withCode('connection failure', '08006'),
      new Error('Connection terminated unexpectedly'),
      new Error('Connection terminated due to connection timeout'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Client has encountered a connection error and is not queryable'),
      new Error('Query read timeout'),
    ]) {
      assert.equal(isDatabaseUnavailable(error), true, error.message);
    }
  });

  it('leaves query errors and everything else to be what they are', () => {
    for (const error of [
      withCode('duplicate key value violates unique constraint', '23505'),
      withCode('syntax error at or near "selec"', '42601'),
      withCode('canceling statement due to statement timeout', '57014'),
      new Error('something else'),
      'a string',
      null,
    ]) {
      assert.equal(isDatabaseUnavailable(error), false, String(error));
    }
  });
});

describe('PostgreSQL connections that die', { skip: DATABASE_URL ? false : 'needs DATABASE_URL' }, () => {
  it('a session killed while a query runs fails that query and does not crash the process', async () => {
    const { db, close } = await openDatabase({ url: DATABASE_URL, poolSize: 1 });
    try {
      // The server ends its own session mid-query, as a restart does to every session: pg then emits
      // 'error' on the checked-out client, which used to be an uncaught exception.
      const error = await sql`select pg_terminate_backend(pg_backend_pid())`.execute(db).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(error instanceof Error, 'the query fails');
      assert.equal(isDatabaseUnavailable(error), true, String(error));
      // The dying client may be handed out once more before its socket's close is seen; then never again.
      let one: number | undefined;
      for (let attempt = 0; attempt < 3 && one === undefined; attempt++) {
        one = await sql<{ one: number }>`select 1 as one`.execute(db).then(
          (r) => r.rows[0]?.one,
          () => undefined,
        );
      }
      assert.equal(one, 1, 'the pool replaces the connection');
    } finally {
      await close();
    }
  });

  it('a query unanswered within queryTimeoutMs fails as unavailable, and its connection is dropped', async () => {
    const { db, close } = await openDatabase({ url: DATABASE_URL, poolSize: 1, queryTimeoutMs: 200 });
    try {
      const pid = async () =>
        (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]?.pid;
      const before = await pid();
      const error = await db
        .transaction()
        .execute(async (tx) => {
          await sql`select pg_sleep(2)`.execute(tx);
        })
        .then(
          () => null,
          (e: unknown) => e,
        );
      assert.ok(error instanceof Error);
      assert.equal(isDatabaseUnavailable(error), true, String(error));
      // One connection in the pool: had it been kept, the next query would queue behind the sleeping one,
      // inside the transaction whose ROLLBACK could not be sent.
      const after = await pid();
      assert.notEqual(after, before, 'a new connection, outside any transaction');
      const { rows } = await sql<{
        open: boolean;
      }>`select txid_current_if_assigned() is not null as open`.execute(db);
      assert.equal(rows[0]?.open, false);
    } finally {
      await close();
    }
  });
});

describe('embedded PGlite', () => {
  it('runs with a bounded page cache (shared_buffers), not PostgreSQL’s 128MB default', async () => {
    const handle = await openDatabase({});
    try {
      const { rows } = await sql<{ shared_buffers: string }>`show shared_buffers`.execute(handle.db);
      assert.equal(rows[0]?.shared_buffers, '32MB');
    } finally {
      await handle.close();
    }
  });
});
