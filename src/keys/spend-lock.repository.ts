import type { Database } from '../db/index.ts';

/**
 * Locks the key's row (not its customer's): reservations against one key's cap are taken one at a time. With the
 * key's cap and its customer.
 */
export async function lockKeyForSpend(
  tx: Database,
  keyId: string,
): Promise<{ daily_spend_cap_usd: string; customer_id: string } | undefined> {
  return tx
    .selectFrom('api_keys')
    .select(['daily_spend_cap_usd', 'customer_id'])
    .where('id', '=', keyId)
    .forUpdate()
    .executeTakeFirst();
}
