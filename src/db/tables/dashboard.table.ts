import type { Selectable } from 'kysely';

export interface DashboardUsersTable {
  id: string;
  customer_id: string;
  /** Lower-cased; unique across customers (one sign-in name, one customer). */
  email: string;
  /** argon2id PHC string. */
  password_hash: string;
  created_at: Date;
  last_login_at: Date | null;
}
export type DashboardUserRow = Selectable<DashboardUsersTable>;

export interface DashboardSessionsTable {
  id: string;
  /** SHA-256 (hex) of the random token in the cookie; the token itself is never stored. */
  token_hash: string;
  user_id: string;
  customer_id: string;
  /** Synchronizer token every form of this session posts back. */
  csrf_token: string;
  /** One-time message for the next page (may hold a new secret), sealed with the secret box. */
  flash_encrypted: string | null;
  created_at: Date;
  /** Absolute end of the session; the idle limit is checked against last_seen_at. */
  expires_at: Date;
  last_seen_at: Date;
  /** Set while the session views test data: the customer's test twin, whose data its pages show. */
  test_customer_id: string | null;
}
export type DashboardSessionRow = Selectable<DashboardSessionsTable>;

export interface KeyUsageDailyTable {
  key_id: string;
  /** UTC day, written as YYYY-MM-DD (a `date` column; read back with ::text). */
  day: string;
  customer_id: string;
  /** bigint: read as a decimal string. */
  requests: string | number;
  errors: string | number;
}
