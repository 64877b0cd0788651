/** Skip reasons for tests that need a real server or several processes (CI sets both variables). */
export const DATABASE_URL = process.env.DATABASE_URL;
export const REDIS_URL = process.env.REDIS_URL;

export const needsPostgres: string | false = DATABASE_URL
  ? false
  : 'needs DATABASE_URL (several processes share one PostgreSQL; the embedded PGlite is one process)';
export const needsRedis: string | false = REDIS_URL
  ? false
  : 'needs REDIS_URL (the shared rate-limit store of several instances)';
export const needsBoth: string | false = needsPostgres || needsRedis;

/** Every child of one run uses this secret, as several real instances must (README). */
export const SERVER_SECRET = 'reliability-suite-server-secret-0123456789';

/** host and port of a postgres:// or redis:// URL. */
export function hostPort(url: string, defaultPort: number): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname || '127.0.0.1', port: Number(u.port) || defaultPort };
}

/** The same URL pointed at another host:port (a proxy), keeping credentials, database and options. */
export function via(url: string, address: string): string {
  const u = new URL(url);
  u.host = address;
  return u.toString();
}
