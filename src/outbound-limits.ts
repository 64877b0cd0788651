import metadata from 'libphonenumber-js/metadata.max';

/**
 * The operator's outer bounds on one customer's outbound calls: the regions any of its keys may call and the largest
 * daily spend cap a key may have. A key's own allowlist and cap lie inside them; what a key can do is the overlap.
 */
export type OutboundLimits = { countries: readonly string[]; maxDailyCapUsd: string };

/** What a key stores: its own allowlist and daily cap. */
export type KeyOutbound = { countries: readonly string[]; capUsd: string };

/** A key created without an allowlist or a cap gets these (spec 4.6), within its customer's limits. */
export const DEFAULT_ALLOWED_COUNTRIES: readonly string[] = ['US', 'CA'];
export const DEFAULT_DAILY_SPEND_CAP_USD = '100.00';

/** The limits of a customer when the operator sets neither its own nor OUTBOUND_*_DEFAULT. */
export const DEFAULT_OUTBOUND_LIMITS: OutboundLimits = {
  countries: DEFAULT_ALLOWED_COUNTRIES,
  maxDailyCapUsd: DEFAULT_DAILY_SPEND_CAP_USD,
};

/**
 * Numbers that belong to no country (international freephone +800, satellite +870/+881, networks +882/+883, …)
 * have no ISO code, so an allowlist names them by their calling code. libphonenumber's metadata, which the number
 * checks parse with, lists both kinds.
 */
export const NON_GEOGRAPHIC_REGIONS: readonly string[] = Object.keys(metadata.nonGeographic).map(
  (c) => `+${c}`,
);

/** An ISO 3166-1 alpha-2 country (`GB`) or a non-geographic calling code (`+882`). */
export const isRegion = (token: string): boolean =>
  Object.hasOwn(metadata.countries, token) || NON_GEOGRAPHIC_REGIONS.includes(token);

/** As typed by people: trimmed, upper case, each once. */
export const normalizeRegions = (tokens: readonly string[]): string[] => [
  ...new Set(tokens.map((t) => t.trim().toUpperCase()).filter(Boolean)),
];

export const unknownRegions = (tokens: readonly string[]): string[] => tokens.filter((t) => !isRegion(t));

export const unknownRegionMessage = (token: string): string =>
  `Unknown country code "${token}": use an ISO 3166-1 alpha-2 code such as US, or a non-geographic calling code such as +882.`;

const CAP_RE = /^(\d{1,10})(?:\.(\d{1,2}))?$/;

/** A daily cap as numeric(12,2) holds it: at most 10 digits before the point and 2 after. */
export const isCapAmount = (usd: string): boolean => CAP_RE.test(usd);

export const CAP_AMOUNT_MESSAGE = 'Must be a non-negative amount with at most 2 decimals.';

/** Entries that name no region, and a cap that is no amount, each on its field (named by the caller). */
export function valueIssues(
  value: { countries: readonly string[]; capUsd: string | null | undefined },
  fields: { countries: string; cap: string },
): { path: string[]; message: string }[] {
  return [
    ...unknownRegions(value.countries).map((c) => ({
      path: [fields.countries],
      message: unknownRegionMessage(c),
    })),
    ...(typeof value.capUsd === 'string' && !isCapAmount(value.capUsd)
      ? [{ path: [fields.cap], message: CAP_AMOUNT_MESSAGE }]
      : []),
  ];
}

const cents = (usd: string): bigint => {
  const m = CAP_RE.exec(usd);
  if (!m?.[1]) throw new Error(`Not a cap amount: ${usd}`);
  return BigInt(m[1]) * 100n + BigInt((m[2] ?? '').padEnd(2, '0'));
};

/** `42.5` → `42.50`: how the database reads a cap back. */
export const formatCap = (usd: string): string => {
  const c = cents(usd);
  return `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;
};

/** The limits a customer row stores (null: follow the operator's defaults), resolved. */
export const resolveLimits = (
  stored: { outbound_countries: string[] | null; outbound_max_daily_cap_usd: string | null },
  defaults: OutboundLimits,
): OutboundLimits => ({
  countries: stored.outbound_countries ?? defaults.countries,
  maxDailyCapUsd: stored.outbound_max_daily_cap_usd ?? defaults.maxDailyCapUsd,
});

/**
 * A new key's allowlist and cap when none is given: US and CA within the customer's limits (all of its regions
 * when it may call neither), and the lower of 100.00 and its largest cap.
 */
export function keyDefaults(limits: OutboundLimits): KeyOutbound {
  const countries = DEFAULT_ALLOWED_COUNTRIES.filter((c) => limits.countries.includes(c));
  return {
    countries: countries.length > 0 ? countries : [...limits.countries],
    capUsd: lowerCap(DEFAULT_DAILY_SPEND_CAP_USD, limits.maxDailyCapUsd),
  };
}

const lowerCap = (a: string, b: string): string => formatCap(cents(a) <= cents(b) ? a : b);

/** The cap a key is held to: the lower of its own and the largest its customer's limits allow. */
export const effectiveCap = (keyCapUsd: string, limits: Pick<OutboundLimits, 'maxDailyCapUsd'>): string =>
  lowerCap(keyCapUsd, limits.maxDailyCapUsd);

/**
 * Where a key's allowlist or cap goes past its customer's limits: one message per field, naming the bound (a cap
 * that is no amount is left to the format check).
 */
export function limitIssues(key: KeyOutbound, limits: OutboundLimits): { path: string[]; message: string }[] {
  const outside = key.countries.filter((c) => !limits.countries.includes(c));
  return [
    ...(outside.length > 0
      ? [
          {
            path: ['allowed_countries'],
            message: `${outside.join(', ')} ${outside.length === 1 ? 'is' : 'are'} outside the countries this customer may call (${regionList(limits.countries)}), set by the operator.`,
          },
        ]
      : []),
    ...(isCapAmount(key.capUsd) && cents(key.capUsd) > cents(limits.maxDailyCapUsd)
      ? [
          {
            path: ['daily_spend_cap_usd'],
            message: `Must be at most ${formatCap(limits.maxDailyCapUsd)}, the largest daily cap the operator allows this customer.`,
          },
        ]
      : []),
  ];
}

/** What a key can actually do: its allowlist within its customer's regions, the lower of the two caps. */
export function effectiveOutbound(
  key: KeyOutbound,
  limits: OutboundLimits,
): { countries: string[]; capUsd: string; narrowed: boolean } {
  const countries = key.countries.filter((c) => limits.countries.includes(c));
  const capUsd = effectiveCap(key.capUsd, limits);
  return {
    countries,
    capUsd,
    narrowed: countries.length < key.countries.length || cents(capUsd) < cents(key.capUsd),
  };
}

/** Which bound holds a key to its cap: the customer's, when it is the lower. */
export const capBound = (
  keyCapUsd: string,
  limits: Pick<OutboundLimits, 'maxDailyCapUsd'>,
): 'key' | 'customer' => (cents(limits.maxDailyCapUsd) < cents(keyCapUsd) ? 'customer' : 'key');

export const regionList = (regions: readonly string[]): string => regions.join(', ') || 'none';
