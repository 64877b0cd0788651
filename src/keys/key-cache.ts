import type { Clock } from '../clock.ts';
import type { Database } from '../db/index.ts';
import { type Notifications, notify } from '../db/index.ts';
import type { KeyRecord } from './keys.repository.ts';

/**
 * Verified keys in memory, so an authenticated request needs no database round trip for its key. What it holds is
 * the row as read (the key, its matched value's grace end, its customer's ceiling); expiry and grace are compared
 * with the clock on every use by the caller, never cached as a verdict.
 *
 * Revocation stays immediate: every change to a key or a customer ceiling is announced by its own transaction on
 * `api_keys_changed` (`announceKeyChange`), which every instance hears, and the instance that made it also tells
 * its own cache at once (`changed`). Notifications can be lost while the listening connection is down, so the cache
 * is only used while it is up: otherwise, and after any gap, it is emptied and every lookup reads the database.
 */
export type KeyCache = {
  /**
   * The record of the key value whose memory id is `id` (a digest of the value, never stored anywhere else;
   * undefined: no such value), from memory when that is safe, else from `read`.
   */
  lookup(id: string, read: () => Promise<KeyRecord | undefined>): Promise<KeyRecord | undefined>;
  /** A change committed by this instance: `keyId` for one key, null for anything wider (a customer's ceiling). */
  changed(keyId: string | null): void;
  /** Entries held now (known values, unknown values). */
  size(): { known: number; unknown: number };
};

export type KeyCacheLimits = {
  /** Known values held at most (about 1.1 KB each, their lists shared); the oldest read goes first. */
  maxKnown: number;
  /** A known value is read again after this long even if no change was heard (a safety net, not the mechanism). */
  knownTtlMs: number;
  /** Unknown values remembered at most (a flood of made-up keys must not grow memory). */
  maxUnknown: number;
  unknownTtlMs: number;
};

export const KEY_CACHE_LIMITS: KeyCacheLimits = {
  maxKnown: 20_000,
  knownTtlMs: 5 * 60_000,
  maxUnknown: 10_000,
  unknownTtlMs: 60_000,
};

/** Distinct lists of scopes or countries held as one shared copy each (past this, a record keeps its own). */
const MAX_SHARED_LISTS = 1_000;

/**
 * One frozen copy of each list of scopes or countries the held records name. A database read gives every key its
 * own array and strings: 10,000 held keys with seven scopes and two countries each kept 4.8 MB of the same few
 * lists (docs/performance.md, the nineteenth section). Frozen, so a caller that tried to change one key's list
 * would fail loudly instead of changing every key's.
 */
function listSharer() {
  const lists = new Map<string, string[]>();
  return <L extends string[] | null>(list: L): L => {
    if (list === null) return list;
    const id = list.join('\n');
    const held = lists.get(id);
    if (held) return held as L;
    if (lists.size >= MAX_SHARED_LISTS) return list;
    const copy = Object.freeze([...list]) as string[];
    lists.set(id, copy);
    return copy as L;
  };
}

/** Payload of a change to every key (a customer ceiling): the empty string. */
const EVERY_KEY = '';

/** Sends the change on `api_keys_changed` when `tx` commits: `keyId`, or null for every key of the service. */
export const announceKeyChange = (tx: Database, keyId: string | null): Promise<void> =>
  notify(tx, 'api_keys_changed', keyId ?? EVERY_KEY);

export function createKeyCache(deps: {
  notifications: Notifications;
  clock: Clock;
  limits?: KeyCacheLimits;
}): KeyCache {
  const { notifications, clock } = deps;
  const limits = deps.limits ?? KEY_CACHE_LIMITS;
  const known = new Map<string, { record: KeyRecord; until: number }>();
  const shared = listSharer();
  const unknown = new Map<string, number>();
  // Bumped by every change and gap: a read that started before one must not be remembered after it.
  let generation = 0;
  let listening = false;

  const dropAll = () => {
    generation++;
    known.clear();
    unknown.clear();
  };
  const forget = (keyId: string | null) => {
    if (keyId === null || keyId === EVERY_KEY) return dropAll();
    generation++;
    // A new value may be one that was asked for before it existed.
    unknown.clear();
    for (const [id, entry] of known) if (entry.record.id === keyId) known.delete(id);
  };
  const bounded = <V>(map: Map<string, V>, max: number) => {
    while (map.size > max) {
      const oldest = map.keys().next();
      if (oldest.done) return;
      map.delete(oldest.value);
    }
  };

  return {
    async lookup(id, read) {
      // Listening starts with the first lookup: the CLI and the worker, which never authenticate, hold no
      // listening connection for it.
      if (!listening) {
        listening = true;
        notifications.listen('api_keys_changed', forget, dropAll);
      }
      if (!notifications.connected()) {
        if (known.size > 0 || unknown.size > 0) dropAll();
        return read();
      }
      const now = clock.now().getTime();
      const hit = known.get(id);
      if (hit && hit.until > now) return hit.record;
      const miss = unknown.get(id);
      if (miss !== undefined && miss > now) return undefined;
      const startedAt = generation;
      const record = await read();
      if (generation !== startedAt || !notifications.connected()) return record;
      if (record) {
        // In place: the caller may keep this very object (the write-behind of `last_used_at` updates it).
        record.scopes = shared(record.scopes);
        record.allowed_countries = shared(record.allowed_countries);
        record.outbound_countries = shared(record.outbound_countries);
        known.delete(id);
        known.set(id, { record, until: now + limits.knownTtlMs });
        bounded(known, limits.maxKnown);
      } else {
        unknown.delete(id);
        unknown.set(id, now + limits.unknownTtlMs);
        bounded(unknown, limits.maxUnknown);
      }
      return record;
    },
    changed: forget,
    size: () => ({ known: known.size, unknown: unknown.size }),
  };
}
