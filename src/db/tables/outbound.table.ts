import type { Generated, Selectable } from 'kysely';

/** `resource_deleted`: the call it made was deleted (DELETE /calls/{id}); a retry is refused, never made again. */
export type IdempotencyState = 'in_flight' | 'completed' | 'failed' | 'resource_deleted';

export interface IdempotencyKeysTable {
  customer_id: string;
  key: string;
  /** SHA-256 of the canonical JSON of the request body. */
  request_hash: string;
  state: IdempotencyState;
  /**
   * The call id (a uuid) or message id (`sms_…`) this key makes; a retry after a provider failure reuses it (the
   * provider dedupes on it).
   */
  resource_id: string;
  response_status: number | null;
  /** The JSON body exactly as first sent, so a replay is byte for byte the same. */
  response_body: string | null;
  created_at: Date;
  updated_at: Date;
}
export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

/** One row per API-placed call or API-sent message (exactly one of `call_id`, `message_id`). */
export interface SpendReservationsTable {
  call_id: string | null;
  message_id: string | null;
  api_key_id: string;
  customer_id: string;
  /** UTC day of placement, as YYYY-MM-DD. */
  day: string;
  /** numeric(12,4) as a decimal string: the estimate while reserved, the actual cost once settled. */
  amount_usd: string;
  state: 'reserved' | 'settled';
  created_at: Date;
  settled_at: Date | null;
}

/**
 * Each key's reserved plus settled spend on one UTC day: the sum of its spend_reservations rows, kept by the
 * trigger `spend_reservations_days` on every change to them (migration 20261129_0800); never written directly.
 */
export interface SpendDaysTable {
  api_key_id: string;
  /** UTC day, as YYYY-MM-DD. */
  day: string;
  /** numeric as a decimal string (four places, as the reservations'). */
  amount_usd: string;
}

/**
 * Outbox of callback_url notifications (contract for the delivery worker in docs/spec-decisions.md):
 * claim rows with `state = 'pending' and next_attempt_at <= now and (leased_until is null or
 * leased_until < now)` (FOR UPDATE SKIP LOCKED); POST `body` byte for byte to `url` with
 * X-Svc-Event = `event`, X-Svc-Timestamp and X-Svc-Signature-256 made at send time with the
 * customer's callback secret; then mark it `delivered`, or count the attempt and move `next_attempt_at`.
 */
export interface CallbackNotificationsTable {
  id: string;
  customer_id: string;
  call_id: string;
  /** 1, 2, 3… per call, in the order of the changes. */
  sequence: number;
  event: string;
  url: string;
  /** The exact JSON envelope to send. */
  body: string;
  state: Generated<'pending' | 'delivered' | 'failed'>;
  attempts: Generated<number>;
  next_attempt_at: Date;
  /** Set by a worker that has claimed the row; another worker may take it after this time. */
  leased_until: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  created_at: Date;
}
export type CallbackNotificationRow = Selectable<CallbackNotificationsTable>;

export interface CallbackSecretsTable {
  customer_id: string;
  version: number;
  rotated_at: Date;
}
