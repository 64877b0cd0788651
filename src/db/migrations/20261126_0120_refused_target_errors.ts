import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/** What an attempt to a refused target recorded before: it named the internal address the host resolved to. */
const NAMING_THE_ADDRESS = `'Target address % is not allowed for webhooks'`;
/** What it records now (src/delivery/ssrf-guard.ts, BLOCKED_TARGET_ERROR), written out: a migration does not change. */
const GENERIC = `'the target''s host resolved to a private or reserved address, which is not allowed for webhooks'`;

/**
 * The delivery logs kept from before (webhook attempts and deliveries, callback notifications) say what kind of
 * address refused a target, not which one, like the attempts made from now on: the customer's log must not map the
 * operator's internal DNS. No `down`: the addresses are not kept anywhere, so there is nothing to restore.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `update webhook_attempts set error = ${GENERIC} where error like ${NAMING_THE_ADDRESS}`,
    `update webhook_deliveries set last_error = ${GENERIC} where last_error like ${NAMING_THE_ADDRESS}`,
    `update callback_notifications set last_error = ${GENERIC} where last_error like ${NAMING_THE_ADDRESS}`,
  ]);
}
