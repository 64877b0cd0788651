import { sql } from 'kysely';
import type { AuthCustomer } from '../customers/index.ts';
import type { ApiKeyRow, Database, KeyMode } from '../db/index.ts';
import { prepare } from '../db/index.ts';

export type NewKey = Omit<ApiKeyRow, 'last_used_at' | 'revoked_at'>;

/** Two writes: run it inside the caller's transaction. */
export async function insertKey(tx: Database, key: NewKey, hash: string): Promise<void> {
  await tx.insertInto('api_keys').values(key).execute();
  await tx
    .insertInto('api_key_secrets')
    .values({ hash, key_id: key.id, created_at: key.created_at, valid_until: null })
    .execute();
}

/** Everything authentication needs of the key, in one indexed lookup by hash. */
const bySecretHash = prepare((db, p: { hash: string }) =>
  db
    .selectFrom('api_key_secrets as s')
    .innerJoin('api_keys as k', 'k.id', 's.key_id')
    .select([
      's.hash',
      's.valid_until',
      'k.id',
      'k.name',
      'k.prefix',
      'k.scopes',
      'k.expires_at',
      'k.revoked_at',
      'k.last_used_at',
      'k.daily_spend_cap_usd',
      'k.allowed_countries',
      'k.rate_limit_per_minute as key_rate_limit_per_minute',
      'k.customer_id',
      'k.mode',
    ])
    .where('s.hash', '=', p.hash),
);

/** The key and the matched value's grace end. */
export type KeySecretRow = Awaited<ReturnType<typeof bySecretHash>>[number];

/** The key, its customer and the matched value's grace end: what authentication reads (or holds in memory). */
export type KeyRecord = KeySecretRow & AuthCustomer;

export async function findBySecretHash(db: Database, hash: string): Promise<KeySecretRow | undefined> {
  const [row] = await bySecretHash(db, { hash });
  return row;
}

export async function findKey(db: Database, keyId: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
}

export async function listKeys(
  db: Database,
  filter: { customerId?: string; prefix?: string; mode?: KeyMode },
): Promise<ApiKeyRow[]> {
  let q = db.selectFrom('api_keys').selectAll();
  if (filter.customerId) q = q.where('customer_id', '=', filter.customerId);
  if (filter.mode) q = q.where('mode', '=', filter.mode);
  if (filter.prefix) q = q.where('prefix', 'like', `${filter.prefix.replace(/[\\%_]/g, '\\$&')}%`);
  return q.orderBy('created_at').orderBy('id').execute();
}

/** The key, locked until the end of the caller's transaction: changes to it wait their turn. */
export async function findKeyForUpdate(tx: Database, keyId: string): Promise<ApiKeyRow | undefined> {
  return tx.selectFrom('api_keys').selectAll().where('id', '=', keyId).forUpdate().executeTakeFirst();
}

/**
 * Adds the new value, starts the grace period of every value still open-ended and moves the display
 * prefix to the new value. Three writes: run it inside the caller's transaction.
 */
export async function rotateSecret(
  tx: Database,
  keyId: string,
  next: { hash: string; prefix: string },
  now: Date,
  graceEnd: Date,
): Promise<ApiKeyRow> {
  await tx
    .updateTable('api_key_secrets')
    .set({ valid_until: graceEnd })
    .where('key_id', '=', keyId)
    .where((eb) => eb.or([eb('valid_until', 'is', null), eb('valid_until', '>', graceEnd)]))
    .execute();
  await tx
    .insertInto('api_key_secrets')
    .values({ hash: next.hash, key_id: keyId, created_at: now, valid_until: null })
    .execute();
  return tx
    .updateTable('api_keys')
    .set({ prefix: next.prefix })
    .where('id', '=', keyId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateKey(
  db: Database,
  keyId: string,
  changes: Partial<Pick<ApiKeyRow, 'scopes' | 'revoked_at'>>,
): Promise<ApiKeyRow | undefined> {
  return db.updateTable('api_keys').set(changes).where('id', '=', keyId).returningAll().executeTakeFirst();
}

/** Moves each key's `last_used_at` forward (never back: another instance may have written a later use). */
export async function touchLastUsed(db: Database, uses: { keyId: string; at: Date }[]): Promise<void> {
  await sql`
    update api_keys k set last_used_at = u.at
    from unnest(${uses.map((u) => u.keyId)}::uuid[], ${uses.map((u) => u.at)}::timestamptz[]) as u(id, at)
    where k.id = u.id and (k.last_used_at is null or k.last_used_at < u.at)`.execute(db);
}

export async function insertAuthFailure(
  db: Database,
  failure: { occurred_at: Date; ip: string; key_prefix: string | null; reason: string },
): Promise<void> {
  await db.insertInto('auth_failures').values(failure).execute();
}

/** When the newest rotated-out value of each key stops working (only keys still in a grace period). */
export async function graceEnds(db: Database, customerId: string, now: Date): Promise<Map<string, Date>> {
  const rows = await db
    .selectFrom('api_key_secrets as s')
    .innerJoin('api_keys as k', 'k.id', 's.key_id')
    .select(['s.key_id', sql<Date>`max(s.valid_until)`.as('until')])
    .where('k.customer_id', '=', customerId)
    .where('s.valid_until', '>', now)
    .groupBy('s.key_id')
    .execute();
  return new Map(rows.map((r) => [r.key_id, new Date(r.until)]));
}
