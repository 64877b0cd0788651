import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { EventRow } from '../events/events.table.ts';

/**
 * Writes one pending delivery per active subscription to the event's type, inside the event's own
 * transaction: the outbox. Subscriptions that are disabled or deleted at that moment get nothing.
 */
export async function enqueueDeliveries(tx: Database, event: EventRow): Promise<number> {
  const result = await sql`
    insert into webhook_deliveries (id, event_id, subscription_id, customer_id, status, attempts, next_attempt_at, created_at)
    select gen_random_uuid(), ${event.id}, s.id, s.customer_id, 'pending', 0, ${event.occurred_at}, ${event.occurred_at}
    from webhook_subscriptions s
    where s.customer_id = ${event.customer_id}
      and s.deleted_at is null
      and s.is_active
      and ${event.type} = any (s.events)`.execute(tx);
  return Number(result.numAffectedRows ?? 0);
}
