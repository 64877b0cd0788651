import type { Generated, Selectable } from 'kysely';

export interface WebhookSubscriptionsTable {
  id: string;
  customer_id: string;
  url: string;
  events: string[];
  /** The sorted events joined by commas: the idempotency identity with url. */
  events_key: string;
  description: string;
  /** AES-256-GCM under a key derived from the server secret; see src/crypto/secret-box.ts. */
  secret_encrypted: string;
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: Date | null;
  is_active: boolean;
  consecutive_failures: number;
  /** When the last counted failure's attempt ended; failures starting shortly after it are folded into it. */
  failure_counted_at: Date | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
  created_at: Date;
  deleted_at: Date | null;
  /** False for a subscription made in test mode (under a test twin): it receives test events only. */
  livemode: boolean;
}
export type SubscriptionRow = Selectable<WebhookSubscriptionsTable>;

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  subscription_id: string;
  customer_id: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date;
  leased_until: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  created_at: Date;
}
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  subscription_id: string;
  attempted_at: Date;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  /** The first bytes of the receiver's answer (RESPONSE_EXCERPT_BYTES), decoded as UTF-8; null without an answer. */
  response_excerpt: string | null;
}
