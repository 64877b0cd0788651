import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PGliteDialect, PostgresDialect } from 'kysely';
import pg from 'pg';
import { statementNames } from './prepared.ts';
import type { DB } from './schema.ts';

export type Database = Kysely<DB>;

export type DatabaseHandle = {
  db: Database;
  kind: 'pglite' | 'postgres';
  close(): Promise<void>;
};

export type DatabaseOptions = {
  /** postgres:// URL; absent means the embedded PGlite. */
  url?: string | undefined;
  /** PGlite data folder; absent means in memory. */
  pgliteDir?: string | undefined;
  poolSize?: number;
  /**
   * PostgreSQL only: a query with no answer after this long fails (and its connection is dropped), so a
   * database that stops answering (a network partition, a frozen server) cannot hold requests forever.
   */
  queryTimeoutMs?: number;
  /** PostgreSQL schema to use (tests isolate each run in its own). */
  searchPath?: string;
};

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.url) {
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5_000,
      ...(options.queryTimeoutMs ? { query_timeout: options.queryTimeoutMs } : {}),
      ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
    });
    // A dropped idle connection must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    // pg emits 'error' on a checked-out client whose socket dies (a database restart drops every session);
    // with no listener that event kills the process. The query in flight already fails with the same error
    // (answered 503 by the error handler), and the pool discards the client when it is released.
    pool.on('connect', (client) => {
      client.on('error', () => {});
      sendPreparedAsNamed(client);
      if (options.queryTimeoutMs) dropOnQueryTimeout(client);
    });
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: 'postgres', close: () => db.destroy() };
  }
  const pglite = options.pgliteDir ? new PGlite(path.resolve(options.pgliteDir)) : new PGlite();
  await pglite.waitReady;
  const db = new Kysely<DB>({ dialect: new PGliteDialect({ pglite }) });
  return { db, kind: 'pglite', close: () => db.destroy() };
}

/** Queries from `prepare` go out as named statements: pg parses each once per connection, then only binds. */
function sendPreparedAsNamed(client: pg.PoolClient): void {
  aroundQuery(client, (query, args) => {
    const [text, values] = args;
    const name = typeof text === 'string' ? statementNames.get(text) : undefined;
    return name ? query({ name, text, values }) : query(...args);
  });
}

type Query = (...args: unknown[]) => unknown;

/** Replaces the client's `query` with `around`, which is given the original. */
function aroundQuery(client: pg.PoolClient, around: (query: Query, args: unknown[]) => unknown): void {
  const query = client.query.bind(client) as Query;
  Object.assign(client, { query: (...args: unknown[]) => around(query, args) });
}

/**
 * pg's query_timeout fails the query but keeps its connection, still waiting for the answer: a later query
 * on it would queue behind, or run inside a transaction whose ROLLBACK timed out too. So the connection is
 * dropped instead; the pool discards it on release and the server rolls back whatever it held.
 */
function dropOnQueryTimeout(client: pg.PoolClient): void {
  const drop = (error: unknown) => {
    if (error instanceof Error && error.message === 'Query read timeout') {
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    }
  };
  aroundQuery(client, (query, args) => {
    const result = query(...args);
    if (result instanceof Promise) result.catch(drop);
    return result;
  });
}

/** SQLSTATEs of a server that is going away, starting up or full (class 08 is checked by prefix). */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);
const UNAVAILABLE_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Query read timeout)/;

/**
 * Whether an error says the database could not be reached (down, restarting, refusing connections, pool
 * exhausted) rather than that a query was wrong: the caller should answer "try again", not "our bug".
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNAVAILABLE_SOCKET_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))
      return true;
  }
  return UNAVAILABLE_MESSAGES.test(error.message);
}
