import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { type DatabaseHandle, openDatabase } from '../../src/db/database.ts';
import { makeSelfSignedCertificate } from '../../src/http/tls.ts';
import type { BackendName, BenchOptions } from './options.ts';
import { BENCH_SERVER_SECRET, CACHE_DIR } from './paths.ts';

export type Tls = { certFile: string; keyFile: string; cert: string; key: string };

/** Where a scenario's data lives and how child processes reach it. */
export type Backend = {
  name: BackendName;
  /** e.g. "PGlite (embedded), in-memory limiter" */
  label: string;
  /** Cache folder of this backend and data-set size: manifest, key files, PGlite folder. */
  dir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  tls: Tls;
  /** Environment of a service or CLI child; `redis: false` keeps the in-memory limiter. */
  env(extra?: Record<string, string>, opts?: { redis?: boolean }): NodeJS.ProcessEnv;
  open(): Promise<DatabaseHandle>;
  /** Empties the cached data set (drops and recreates the bench database, or deletes the PGlite folder). */
  reset(): Promise<void>;
};

/** The same certificate for the service and every floor, made once and kept in the cache. */
export async function benchTls(): Promise<Tls> {
  const dir = path.join(CACHE_DIR, 'tls');
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  if (!fs.existsSync(certFile) || !fs.existsSync(keyFile)) {
    const made = await makeSelfSignedCertificate();
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(keyFile, made.key, { mode: 0o600 });
    fs.writeFileSync(certFile, made.cert);
  }
  return {
    certFile,
    keyFile,
    cert: fs.readFileSync(certFile, 'utf8'),
    key: fs.readFileSync(keyFile, 'utf8'),
  };
}

const CHILD_ENV_DROPPED = [
  'DATABASE_URL',
  'REDIS_URL',
  'PORT',
  'HOST',
  'HTTP_PORT',
  'BASE_URL',
  'DATA_DIR',
  'TLS_CERT_FILE',
  'TLS_KEY_FILE',
  'SERVER_SECRET',
  'NODE_OPTIONS',
];

function childEnv(base: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of CHILD_ENV_DROPPED) delete env[k];
  for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v;
  return env;
}

/** The URL of database `name` on the server of `url` (same credentials). */
export function siblingDatabaseUrl(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Creates (or drops) database `name` through a connection to the database the user named. */
export async function adminQuery(url: string, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const found = await adminQuery(
    adminUrl,
    `select 1 from pg_database where datname = '${name.replace(/'/g, "''")}'`,
  );
  if (found.rowCount === 0) await adminQuery(adminUrl, `create database "${name}"`);
}

export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await adminQuery(adminUrl, `drop database if exists "${name}" with (force)`);
}

export function makeBackend(name: BackendName, options: BenchOptions, tls: Tls): Backend {
  const label = options.sizes.label;
  const dir = path.join(CACHE_DIR, `${name}-${label}`);
  fs.mkdirSync(dir, { recursive: true });
  const common = {
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: path.join(dir, 'data'),
    SERVER_SECRET: BENCH_SERVER_SECRET,
    TLS_CERT_FILE: tls.certFile,
    TLS_KEY_FILE: tls.keyFile,
    LOG_LEVEL: 'warn',
    DEMO_SEED: 'false',
    WORKER_IN_PROCESS: 'false',
    RATE_LIMIT_PER_MINUTE: '600',
    KEY_RATE_LIMIT_PER_MINUTE: '600',
  };
  if (name === 'embedded') {
    return {
      name,
      label: 'PGlite (embedded), in-memory limiter',
      dir,
      databaseUrl: undefined,
      redisUrl: undefined,
      tls,
      env: (extra = {}) => childEnv({ ...common, ...extra }),
      open: () => openDatabase({ pgliteDir: path.join(dir, 'data', 'pglite') }),
      async reset() {
        fs.rmSync(path.join(dir, 'data'), { recursive: true, force: true });
      },
    };
  }
  const adminUrl = options.databaseUrl;
  if (!adminUrl) throw new Error('postgres backend needs DATABASE_URL');
  const dbName = `voice_calls_bench_${label}`;
  const databaseUrl = siblingDatabaseUrl(adminUrl, dbName);
  const redisUrl = options.redisUrl;
  return {
    name,
    label: `PostgreSQL${redisUrl ? ' + Redis limiter' : ', in-memory limiter'}`,
    dir,
    databaseUrl,
    redisUrl,
    tls,
    env: (extra = {}, opts = {}) =>
      childEnv({
        ...common,
        DATABASE_URL: databaseUrl,
        REDIS_URL: opts.redis === false ? undefined : redisUrl,
        ...extra,
      }),
    async open() {
      await ensureDatabase(adminUrl, dbName);
      return openDatabase({ url: databaseUrl, poolSize: 10 });
    },
    async reset() {
      await dropDatabase(adminUrl, dbName);
      await ensureDatabase(adminUrl, dbName);
    },
  };
}
