import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { isProcessAlive } from '../db/data-dir-lock.ts';
import { type Database, type DatabaseHandle, openDatabase } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { migrations } from '../db/migrations/index.ts';

let shared: Promise<DatabaseHandle> | null = null;
let sharedSchema: string | null = null;

/** With DATABASE_URL: a URL that puts another process (a spawned worker) in this process's test schema. */
export function testDatabaseUrlForChild(): string | null {
  const url = process.env.DATABASE_URL;
  if (!url || !sharedSchema) return null;
  return inSchema(url, sharedSchema);
}

/** Named for its process, so a later run drops it once that process is gone (dropAbandonedSchemas). */
const newSchemaName = () => `test_${process.pid}_${randomBytes(4).toString('hex')}`;

/** `url` with every connection's search_path set to `schema`. */
export function inSchema(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

/**
 * With DATABASE_URL: the URL of a new, empty schema of this test process (dropped with the others once the process
 * is gone), for a process under test that must have a database to itself (it records its server secret there).
 */
export async function freshSchemaUrl(): Promise<string | null> {
  const url = process.env.DATABASE_URL;
  return url ? inSchema(url, await createSchema(url)) : null;
}

/** A new, empty schema of this test process on the server at `url`; its name. */
async function createSchema(url: string): Promise<string> {
  const schema = newSchemaName();
  const admin = await openDatabase({ url, poolSize: 1 });
  try {
    await sql.raw(`create schema ${schema}`).execute(admin.db);
  } finally {
    await admin.close();
  }
  return schema;
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
  const schema = newSchemaName();
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

/**
 * A database of its own migrated up to `migration` only, so a test can write rows the old way before it migrates
 * the rest (`migrateToLatest`): PGlite in memory, or with DATABASE_URL a schema of its own that `close` drops.
 */
export async function databaseAtMigration(migration: string): Promise<DatabaseHandle> {
  const url = process.env.DATABASE_URL;
  const schema = url ? await createSchema(url) : 'public';
  const handle = await openDatabase(url ? { url, poolSize: 2, searchPath: schema } : {});
  const migrator = new Migrator({
    db: handle.db,
    provider: { getMigrations: async () => migrations },
    migrationTableSchema: schema,
  });
  const { error } = await migrator.migrateTo(migration);
  if (error) throw error;
  if (!url) return handle;
  return {
    ...handle,
    close: async () => {
      await sql.raw(`drop schema ${schema} cascade`).execute(handle.db);
      await handle.close();
    },
  };
}
