import type { Generated, Selectable } from 'kysely';

export interface CustomersTable {
  id: string;
  name: string;
  rate_limit_per_minute: number;
  /** Regions any key of the customer may call (ISO codes, `+882`-style codes); null: OUTBOUND_COUNTRIES_DEFAULT. */
  outbound_countries: string[] | null;
  /** numeric(12,2): the largest daily cap a key may have; null: OUTBOUND_MAX_DAILY_CAP_DEFAULT. */
  outbound_max_daily_cap_usd: string | null;
  /** Set on a test twin: the customer whose test data this row scopes (migration 20261126_0400). */
  live_customer_id: Generated<string | null>;
  /** Days its calls are kept (migration 20261127_0700): null follows CALL_RETENTION_DAYS_DEFAULT, 0 is for ever. */
  call_retention_days: Generated<number | null>;
  /** Phone numbers, e-mail addresses and card numbers are masked in its stored transcripts and summaries. */
  redact_transcripts: Generated<boolean>;
  created_at: Date;
}
export type CustomerRow = Selectable<CustomersTable>;
