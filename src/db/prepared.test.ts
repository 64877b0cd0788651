import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { testDatabase } from '../testing/test-database.ts';
import { type Database, openDatabase } from './database.ts';
import { prepare } from './prepared.ts';
import { statementNames } from './statement-names.ts';

const DATABASE_URL = process.env.DATABASE_URL;

describe('prepared queries', () => {
  let db: Database;
  before(async () => {
    db = (await testDatabase()).db;
  });

  const numbers = (db: Database) =>
    db.selectFrom(sql<{ n: number }>`(select generate_series(1, 10) as n)`.as('t')).select('t.n');

  it('runs each call with its own values, per shape, the same rows as the query built anew', async () => {
    const query = prepare((db, p: { min: number; max?: number | undefined }) => {
      const q = numbers(db).where('t.n', '>=', p.min);
      return (p.max !== undefined ? q.where('t.n', '<=', p.max) : q).orderBy('t.n');
    });
    const ns = (rows: { n: number }[]) => rows.map((r) => Number(r.n));
    assert.deepEqual(ns(await query(db, { min: 8 })), [8, 9, 10]);
    assert.deepEqual(ns(await query(db, { min: 2, max: 4 })), [2, 3, 4]);
    assert.deepEqual(
      ns(await query(db, { min: 9, max: undefined })),
      [9, 10],
      'the cached shape takes new values',
    );
    assert.deepEqual(
      ns(await query(db, { max: 3, min: 3 })),
      ns(await numbers(db).where('t.n', '>=', 3).where('t.n', '<=', 3).execute()),
      'the shape is which values are present, whatever their order',
    );
  });

  it('keeps constants that the builder wrote itself', async () => {
    const query = prepare((db, p: { min: number }) =>
      numbers(db).where('t.n', '>=', p.min).where('t.n', '<', 5).orderBy('t.n'),
    );
    assert.deepEqual(
      (await query(db, { min: 3 })).map((r) => Number(r.n)),
      [3, 4],
    );
  });

  it('refuses a builder that transforms a placeholder instead of passing it whole', async () => {
    const query = prepare((db, p: { name: string }) =>
      db.selectFrom('customers').select('id').where('name', 'like', `${p.name}%`),
    );
    await assert.rejects(query(db, { name: 'Acme' }), /placeholder was transformed/);
  });

  // PGlite too: its session is driven through node-postgres so that these are planned once (database.ts).
  for (const backend of ['PostgreSQL', 'PGlite'] as const) {
    it(`on ${backend}, goes out as a named statement that the session parses once`, {
      skip: backend === 'PGlite' || DATABASE_URL ? false : 'set DATABASE_URL to run',
    }, async () => {
      const one = await openDatabase(backend === 'PGlite' ? {} : { url: DATABASE_URL, poolSize: 1 });
      try {
        const query = prepare((db, p: { min: number }) => numbers(db).where('t.n', '>', p.min));
        await query(one.db, { min: 1 });
        await query(one.db, { min: 2 });
        const name = statementNames.get(numbers(one.db).where('t.n', '>', 0).compile().sql);
        const { rows } = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(one.db);
        assert.ok(name && rows.some((r) => r.name === name), `${name} among ${JSON.stringify(rows)}`);
      } finally {
        await one.close();
      }
    });
  }
});
