import type { Generated, Selectable } from 'kysely';

export interface ApiKeysTable {
  id: string;
  customer_id: string;
  name: string;
  prefix: string;
  scopes: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
  /** numeric(12,2), read as a decimal string. */
  daily_spend_cap_usd: string;
  allowed_countries: string[];
  /** Per-key window ceiling; null means the configured default. */
  rate_limit_per_minute: number | null;
  /** `test` for `svc_test_` keys: their requests see their customer's test twin's data. */
  mode: Generated<KeyMode>;
  created_at: Date;
  last_used_at: Date | null;
}
export type KeyMode = 'live' | 'test';
export type ApiKeyRow = Selectable<ApiKeysTable>;

export interface ApiKeySecretsTable {
  hash: string;
  key_id: string;
  created_at: Date;
  valid_until: Date | null;
}

export interface AuthFailuresTable {
  id: Generated<number>;
  occurred_at: Date;
  ip: string;
  key_prefix: string | null;
  reason: string;
}
