import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    // Copies that repeated redeliveries queued before this index: the one due first stays, the rest go.
    `delete from webhook_deliveries d
       using webhook_deliveries k
       where d.status = 'pending' and k.status = 'pending'
         and d.event_id = k.event_id and d.subscription_id = k.subscription_id
         and (d.next_attempt_at, d.id) > (k.next_attempt_at, k.id)`,
    // At most one pending delivery of an event to a subscription: a redelivery never stacks another copy.
    `create unique index webhook_deliveries_pending_once_idx
       on webhook_deliveries (event_id, subscription_id) where status = 'pending'`,
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [`drop index webhook_deliveries_pending_once_idx`]);
}
