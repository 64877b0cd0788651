import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { isProcessAlive } from '../db/data-dir-lock.ts';
import { type Database, type DatabaseHandle, openDatabase } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';

let shared: Promise<DatabaseHandle> | null = null;
let sharedSchema: string | null = null;

/** With DATABASE_URL: a URL that puts another process (a spawned worker) in this process's test schema. */
export function testDatabaseUrlForChild(): string | null {
  const url = process.env.DATABASE_URL;
  if (!url || !sharedSchema) return null;
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${sharedSchema}`);
  return u.toString();
}

/**
 * One migrated database per test process, shared by every test in it (tests isolate by customer).
 * PGlite in memory by default; with DATABASE_URL, a schema of its own on that server.
 */
export function testDatabase(): Promise<DatabaseHandle> {
  shared ??= open();
  return shared;
}

async function open(): Promise<DatabaseHandle> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const handle = await openDatabase({});
    await migrateToLatest(handle.db);
    return handle;
  }
  const schema = `test_${process.pid}_${randomBytes(4).toString('hex')}`;
  sharedSchema = schema;
  const admin = await openDatabase({ url, poolSize: 1 });
  await dropAbandonedSchemas(admin.db);
  await sql.raw(`create schema ${schema}`).execute(admin.db);
  await admin.close();
  const handle = await openDatabase({ url, poolSize: 10, searchPath: schema });
  await migrateToLatest(handle.db);
  return { ...handle, close: async () => {} };
}

/** The test runner force-exits, so each run sweeps the schemas of test processes that are gone. */
async function dropAbandonedSchemas(db: Database): Promise<void> {
  const { rows } = await sql<{ name: string }>`
    select nspname as name from pg_namespace where nspname like 'test\_%'`.execute(db);
  for (const { name } of rows) {
    const pid = Number(name.split('_')[1]);
    if (!isProcessAlive(pid)) await sql.raw(`drop schema if exists ${name} cascade`).execute(db);
  }
}
