import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { prepare } from '../db/prepared.ts';
import type { ApiKeyRow } from './keys.table.ts';

export type NewKey = Omit<ApiKeyRow, 'last_used_at' | 'revoked_at'>;

export async function insertKey(db: Database, key: NewKey, hash: string): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx.insertInto('api_keys').values(key).execute();
    await tx
      .insertInto('api_key_secrets')
      .values({ hash, key_id: key.id, created_at: key.created_at, valid_until: null })
      .execute();
  });
}

/** Everything authentication needs, in one indexed lookup by hash. */
const bySecretHash = prepare((db, p: { hash: string }) =>
  db
    .selectFrom('api_key_secrets as s')
    .innerJoin('api_keys as k', 'k.id', 's.key_id')
    .innerJoin('customers as c', 'c.id', 'k.customer_id')
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
      'c.name as customer_name',
      'c.rate_limit_per_minute',
    ])
    .where('s.hash', '=', p.hash),
);

/** The key, its customer and the matched value's grace end: run on every authenticated request. */
export async function findBySecretHash(db: Database, hash: string) {
  const [row] = await bySecretHash(db, { hash });
  return row;
}

export async function findKey(db: Database, keyId: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
}

export async function listKeys(
  db: Database,
  filter: { customerId?: string; prefix?: string },
): Promise<ApiKeyRow[]> {
  let q = db.selectFrom('api_keys').selectAll();
  if (filter.customerId) q = q.where('customer_id', '=', filter.customerId);
  if (filter.prefix) q = q.where('prefix', 'like', `${filter.prefix.replace(/[\\%_]/g, '\\$&')}%`);
  return q.orderBy('created_at').orderBy('id').execute();
}

/** Adds the new value and starts the grace period of every value still open-ended. */
export async function rotateSecret(
  db: Database,
  keyId: string,
  newHash: string,
  now: Date,
  graceEnd: Date,
): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx
      .updateTable('api_key_secrets')
      .set({ valid_until: graceEnd })
      .where('key_id', '=', keyId)
      .where((eb) => eb.or([eb('valid_until', 'is', null), eb('valid_until', '>', graceEnd)]))
      .execute();
    await tx
      .insertInto('api_key_secrets')
      .values({ hash: newHash, key_id: keyId, created_at: now, valid_until: null })
      .execute();
  });
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
