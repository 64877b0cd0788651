import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { type Notifications, pgliteNotifications, postgresNotifications } from './notifications.ts';
import { type PgliteThread, startPgliteThread } from './pglite-thread.ts';
import type { DB } from './schema.ts';
import { statementNames } from './statement-names.ts';
import { withFastTimestamps } from './timestamps.ts';

export type Database = Kysely<DB>;

export type DatabaseHandle = {
  db: Database;
  kind: 'pglite' | 'postgres';
  /** LISTEN/NOTIFY (src/db/notifications.ts): wake-ups and cache invalidation across instances. */
  notifications: Notifications;
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
  /**
   * PGlite: a new folder is loaded from this dump when it can be read (a migrated cluster, schema-template.ts),
   * else from the empty cluster's.
   */
  schemaTemplate?: string | undefined;
};

/**
 * PGlite's page cache, inside the API process's WebAssembly heap. Its default (128MB) made the process hold about
 * 100 MB more, at rest and under load, for no measured gain on the bench's pages: the data folder's files stay in
 * the OS cache.
 */
export const PGLITE_SHARED_BUFFERS = '32MB';

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  // Each driver is loaded only for its backend: a process needs one of them.
  if (options.url) {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      types: withFastTimestamps(pg.types),
      // Opened connections stay open: pg-pool otherwise closes one idle for 10 s, and the first requests after a
      // quiet spell paid a new session and the re-preparation of their statements (docs/performance.md: p99 of a
      // paced load right after 12 s of quiet 45–117 ms; 9–14 ms in five of six runs with them kept).
      idleTimeoutMillis: 0,
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
    const notifications = postgresNotifications(
      () =>
        new pg.Client({
          connectionString: options.url,
          connectionTimeoutMillis: 5_000,
          ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
        }),
    );
    return { db, kind: 'postgres', notifications, close: closeBoth(db, notifications) };
  }
  const thread = await startPgliteThread({
    dir: options.pgliteDir,
    schemaTemplate: options.schemaTemplate,
    sharedBuffers: PGLITE_SHARED_BUFFERS,
  });
  const session = await pgliteSession(thread);
  const notifications = await pgliteNotifications(session);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: session }) });
  return {
    db,
    kind: 'pglite',
    notifications,
    async close() {
      await notifications.close();
      await db.destroy();
      await thread.close();
    },
  };
}

/**
 * PGlite's one session (on its own thread, pglite-thread.ts), driven by node-postgres as a PostgreSQL server is:
 * the same result parsing, and the prepared queries go out as named statements (`sendPreparedAsNamed`), planned
 * once, where PGlite's own `query()` parses and plans every statement anew (measured on the bench's quick folder:
 * the key lookup 0.56–0.61 → 0.15–0.21 ms, a calls page 1.27–1.60 → 0.88–1.02 ms). A pool of one connection:
 * there is one session, and pg queues the rest.
 */
export async function pgliteSession(thread: PgliteThread): Promise<pg.Pool> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    stream: () => thread.socket(),
    // PGlite's one cluster has this role and database; it stops on a startup message that names others.
    user: 'postgres',
    database: 'postgres',
    max: 1,
    types: withFastTimestamps(pg.types),
    // Kept open: the one connection is PGlite's session, and its named statements live as long as it does.
    idleTimeoutMillis: 0,
  });
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
    sendPreparedAsNamed(client);
  });
  return pool;
}

const closeBoth = (db: Database, notifications: Notifications) => async () => {
  await notifications.close();
  await db.destroy();
};

/** Queries from `prepare` go out as named statements: the server parses each once per connection, then binds. */
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
