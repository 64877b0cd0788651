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
  created_at: Date;
}
export type CustomerRow = Selectable<CustomersTable>;
