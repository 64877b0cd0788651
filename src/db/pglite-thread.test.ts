import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { isDatabaseUnavailable, PGLITE_SHARED_BUFFERS, pgliteSession } from './database.ts';
import { type PgliteThread, startPgliteThread } from './pglite-thread.ts';

const inMemory = { dir: undefined, schemaTemplate: undefined, sharedBuffers: PGLITE_SHARED_BUFFERS };

describe('PGlite on a thread of its own', () => {
  let thread: PgliteThread;
  let session: pg.Pool;
  before(async () => {
    thread = await startPgliteThread(inMemory);
    session = await pgliteSession(thread);
  });
  after(async () => {
    await session.end();
    await thread.close();
  });

  it('answers node-postgres as a server does: parameters, named statements, errors', async () => {
    const { rows } = await session.query({ name: 'twice', text: 'select $1::int * 2 as n', values: [21] });
    assert.deepEqual(rows, [{ n: 42 }]);
    await assert.rejects(session.query('select * from no_such_table'), { code: '42P01' });
    const again = await session.query({ name: 'twice', text: 'select $1::int * 2 as n', values: [2] });
    assert.deepEqual(again.rows, [{ n: 4 }], 'the session still answers after an error');
  });

  it('keeps nothing per query: its heap does not grow with the queries it answers', async () => {
    const run = async (count: number) => {
      for (let i = 0; i < count; i++) {
        await session.query({ name: 'row', text: "select $1::int as n, repeat('a', 500) as s", values: [i] });
      }
    };
    await run(500);
    const before = await thread.liveHeapBytes();
    await run(5_000);
    const grown = (await thread.liveHeapBytes()) - before;
    // PGlite's execProtocolRaw kept every answer, parsed, for ever: about 1.5 KB a query (5.3 MB here, measured).
    assert.ok(grown < 1_500_000, `the thread's heap grew by ${grown} bytes over 5,000 queries`);
  });

  it('a connection after a dropped one finds no transaction and no named statement left by it', async () => {
    const dropped = await session.connect();
    await dropped.query({ name: 'left', text: 'select 1 as n' });
    await dropped.query('begin');
    await dropped.query('create table left_open (x int)');
    // Released with an error: the pool discards the connection, as after a broken socket.
    dropped.release(new Error('dropped'));

    const next = await session.connect();
    try {
      const { rows } = await next.query(`select to_regclass('left_open') is null as gone`);
      assert.deepEqual(rows, [{ gone: true }], 'the open transaction was rolled back');
      const named = await next.query({ name: 'left', text: 'select 2 as n' });
      assert.deepEqual(named.rows, [{ n: 2 }], 'the name is free again');
    } finally {
      next.release();
    }
  });

  it('a folder that cannot be opened fails the start', async () => {
    const file = path.join(os.tmpdir(), `pglite-not-a-folder-${process.pid}`);
    fs.writeFileSync(file, 'not a data folder');
    try {
      await assert.rejects(startPgliteThread({ ...inMemory, dir: file }), /./);
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  it('queries after the thread has stopped fail as "database unavailable" (503), they do not hang', async () => {
    const other = await startPgliteThread(inMemory);
    const pool = await pgliteSession(other);
    await pool.query('select 1');
    await other.close();
    const error = await pool.query('select 1').then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(isDatabaseUnavailable(error), String(error));
    await pool.end();
  });
});
