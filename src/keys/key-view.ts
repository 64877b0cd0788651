import type { ApiKeyRow } from '../db/index.ts';
import { effectiveOutbound, type OutboundLimits } from '../outbound-limits.ts';

/** A key as operators and the dashboard see it: never the secret, never its hash. */
export type KeyView = {
  id: string;
  customer_id: string;
  name: string;
  prefix: string;
  /** `test`: a `svc_test_` key (test mode). */
  mode: 'live' | 'test';
  scopes: string[];
  status: 'active' | 'revoked' | 'expired';
  expires_at: string | null;
  daily_spend_cap_usd: string;
  allowed_countries: string[];
  /** What the key can do: its cap and allowlist held to its customer's outbound limits. */
  effective_daily_spend_cap_usd: string;
  effective_allowed_countries: string[];
  /** The stored cap or allowlist is wider than the customer's limits now allow. */
  narrowed_by_customer_limits: boolean;
  rate_limit_per_minute: number | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
};

export function rowToKeyView(row: ApiKeyRow, now: Date, limits: OutboundLimits): KeyView {
  const status = row.revoked_at ? 'revoked' : row.expires_at && row.expires_at <= now ? 'expired' : 'active';
  const effective = effectiveOutbound(
    { countries: row.allowed_countries, capUsd: row.daily_spend_cap_usd },
    limits,
  );
  return {
    id: row.id,
    customer_id: row.customer_id,
    name: row.name,
    prefix: row.prefix,
    mode: row.mode,
    scopes: row.scopes,
    status,
    expires_at: row.expires_at?.toISOString() ?? null,
    daily_spend_cap_usd: row.daily_spend_cap_usd,
    allowed_countries: row.allowed_countries,
    effective_daily_spend_cap_usd: effective.capUsd,
    effective_allowed_countries: effective.countries,
    narrowed_by_customer_limits: effective.narrowed,
    rate_limit_per_minute: row.rate_limit_per_minute,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
    revoked_at: row.revoked_at?.toISOString() ?? null,
  };
}
