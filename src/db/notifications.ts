import { type Kysely, type RawBuilder, sql } from 'kysely';
import type pg from 'pg';
import type { DB } from './schema.ts';

/**
 * PostgreSQL's LISTEN/NOTIFY, for waking workers and invalidating caches across instances. A notification is sent
 * by the transaction that makes the change (`notify`), so it arrives only if the change committed. Delivery is
 * not guaranteed: while the listening connection is down, notifications are lost. Every listener is therefore told
 * (`onGap`) whenever one may have been missed, and must then fall back to reading (drop a cache, poll once).
 */
export type Notifications = {
  listen(channel: Channel, handler: (payload: string) => void, onGap?: () => void): () => void;
  /** Whether notifications are arriving now (the listening connection is up). */
  connected(): boolean;
  close(): Promise<void>;
};

/** The channels the service uses; one place, so a typo cannot make a listener deaf. */
export const CHANNELS = [
  'api_keys_changed',
  'webhook_deliveries_due',
  'callbacks_due',
  'transcript_jobs_due',
] as const;
export type Channel = (typeof CHANNELS)[number];

/**
 * Sends `payload` on `channel` when `tx` commits (at once outside a transaction). Channels are named per schema
 * (`<schema>:<channel>`): LISTEN/NOTIFY is database-wide, and two deployments, or two test runs, may share a
 * database in schemas of their own.
 */
export async function notify(tx: Kysely<DB>, channel: Channel, payload = ''): Promise<void> {
  await sql`select ${notifying(channel, payload)}`.execute(tx);
}

/** `notify` as an expression, to send from inside a statement that does the change (no extra round trip). */
export const notifying = (channel: Channel, payload = ''): RawBuilder<unknown> =>
  sql`pg_notify(current_schema() || ':' || ${channel}, ${payload})`;

const channelOf = (schema: string, qualified: string): Channel | null => {
  const prefix = `${schema}:`;
  const name = qualified.startsWith(prefix) ? qualified.slice(prefix.length) : '';
  return (CHANNELS as readonly string[]).includes(name) ? (name as Channel) : null;
};

type Listener = { handler: (payload: string) => void; onGap: (() => void) | undefined };

function registry() {
  const listeners = new Map<Channel, Set<Listener>>();
  return {
    listeners,
    add(channel: Channel, listener: Listener): () => void {
      const set = listeners.get(channel) ?? new Set<Listener>();
      listeners.set(channel, set);
      set.add(listener);
      return () => set.delete(listener);
    },
    deliver(channel: Channel | null, payload: string): void {
      for (const l of (channel && listeners.get(channel)) || []) l.handler(payload);
    },
    gap(): void {
      for (const set of listeners.values()) for (const l of set) l.onGap?.();
    },
  };
}

/**
 * PGlite is one process with one session: it LISTENs on every channel in that session, and node-postgres, which
 * drives it (database.ts), hands over the notifications that arrive with the answers to its own queries. They
 * reach every listener of this instance and never go missing.
 */
export async function pgliteNotifications(session: pg.Pool): Promise<Notifications> {
  const r = registry();
  let schema = 'public';
  const hear = (message: pg.Notification) =>
    r.deliver(channelOf(schema, message.channel), message.payload ?? '');
  const attach = (client: pg.PoolClient) => client.on('notification', hear);
  session.on('connect', attach);
  const { rows } = await session.query<{ schema: string }>('select current_schema() as schema');
  schema = rows[0]?.schema ?? schema;
  const names = CHANNELS.map((channel) => `"${schema}:${channel}"`);
  for (const name of names) await session.query(`LISTEN ${name}`);
  return {
    listen: (channel, handler, onGap) => r.add(channel, { handler, onGap }),
    connected: () => true,
    async close() {
      for (const name of names) await session.query(`UNLISTEN ${name}`);
      session.off('connect', attach);
    },
  };
}

/**
 * PostgreSQL: one dedicated connection LISTENs on every channel. When it drops, listeners are told of the gap at
 * once, and again once it is back (what changed in between was not heard); it reconnects with backoff.
 */
export function postgresNotifications(
  connect: () => pg.Client,
  options: { retryMs?: number; onError?: (error: unknown) => void } = {},
): Notifications {
  const r = registry();
  let client: pg.Client | null = null;
  let schema = '';
  let up = false;
  let started = false;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;

  const lost = () => {
    if (closed) return;
    const wasUp = up;
    up = false;
    client?.removeAllListeners();
    client?.end().catch(() => {});
    client = null;
    if (wasUp) r.gap();
    timer ??= setTimeout(start, options.retryMs ?? 1_000);
    timer.unref();
  };

  async function start(): Promise<void> {
    timer = null;
    if (closed) return;
    const c = connect();
    client = c;
    c.on('error', (error) => {
      options.onError?.(error);
      lost();
    });
    c.on('end', lost);
    c.on('notification', (n) => r.deliver(channelOf(schema, n.channel), n.payload ?? ''));
    try {
      await c.connect();
      const { rows } = await c.query<{ schema: string }>('select current_schema() as schema');
      schema = rows[0]?.schema ?? 'public';
      for (const channel of CHANNELS) await c.query(`listen "${schema}:${channel}"`);
      if (closed || client !== c) return;
      up = true;
      r.gap();
    } catch (error) {
      options.onError?.(error);
      if (client === c) lost();
    }
  }

  return {
    // The connection opens with the first listener: a CLI command that listens to nothing holds none.
    listen(channel, handler, onGap) {
      if (!started) {
        started = true;
        void start();
      }
      return r.add(channel, { handler, onGap });
    },
    connected: () => up,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      up = false;
      const c = client;
      client = null;
      c?.removeAllListeners();
      c?.on('error', () => {});
      await c?.end().catch(() => {});
    },
  };
}
