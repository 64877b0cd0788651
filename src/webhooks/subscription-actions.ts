import type { Database, SubscriptionRow } from '../db/index.ts';
import { notFound } from '../errors/index.ts';
import { deliveryLog } from './delivery-log.ts';

/** What the customer's subscriptions service and the operator's share: the view, the log, the on/off switch. */
export type SubscriptionView = {
  id: string;
  url: string;
  events: string[];
  description: string;
  is_active: boolean;
  created_at: string;
  consecutive_failures: number;
  disabled_reason: string | null;
  livemode: boolean;
  secret?: string;
};

export const rowToSubscription = (r: SubscriptionRow): SubscriptionView => ({
  id: r.id,
  url: r.url,
  events: r.events,
  description: r.description,
  is_active: r.is_active,
  created_at: r.created_at.toISOString(),
  consecutive_failures: r.consecutive_failures,
  disabled_reason: r.disabled_reason,
  livemode: r.livemode,
});

export async function attemptLogOf(db: Database, row: SubscriptionRow | undefined, limit: number) {
  if (!row) throw notFound('Webhook subscription');
  return (
    await deliveryLog(db, row.customer_id, row.id, { failedOnly: false, start: { offset: 0 }, limit })
  ).map((a) => ({
    at: a.attempted_at.toISOString(),
    status_code: a.status_code,
    latency_ms: a.latency_ms,
    error: a.error,
    delivery_id: a.delivery_id,
    delivery_status: a.delivery_status,
    event_id: a.event_id,
    event: a.event_type,
  }));
}

export function activeChanges(now: Date, active: boolean) {
  return {
    is_active: active,
    consecutive_failures: 0,
    failure_counted_at: null,
    disabled_at: active ? null : now,
    disabled_reason: active ? null : 'disabled by the customer',
  };
}

export function activated(row: SubscriptionRow | undefined): SubscriptionView {
  if (!row) throw notFound('Webhook subscription');
  return rowToSubscription(row);
}
