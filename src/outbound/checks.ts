import { type PhoneNumber, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { ESTIMATE_UNITS, formatUsd, toUnits } from '../calls/index.ts';
import type { ErrorCode } from '../errors/index.ts';
import { AppError } from '../errors/index.ts';
import { capBound, effectiveCap, isRegion, type OutboundLimits, regionList } from '../outbound-limits.ts';

export type CheckName = 'assistant' | 'number_type' | 'country' | 'spend_cap';
/** Which bound refused: the key's own allowlist or cap, or its customer's limits set by the operator. */
export type Bound = 'key' | 'customer';
export type Check<N extends string = CheckName> = {
  name: N;
  passed: boolean;
  code: ErrorCode | null;
  detail: string | null;
  bound: Bound | null;
};

export type AssistantInfo = {
  id: string;
  customer_id: string;
  is_active: boolean;
  phone_numbers: string[];
  language: string;
};

/** Numbers an assistant may not call whatever the allowlist: toll fraud and dead ends. */
const BLOCKED_TYPES: Record<string, string> = {
  PREMIUM_RATE: 'premium-rate',
  SHARED_COST: 'shared-cost',
  VOICEMAIL: 'voicemail-access',
  PAGER: 'pager',
};

export const pass = <N extends string>(name: N): Check<N> => ({
  name,
  passed: true,
  code: null,
  detail: null,
  bound: null,
});
export const failed = <N extends string>(
  name: N,
  code: ErrorCode,
  detail: string,
  bound: Bound | null = null,
): Check<N> => ({
  name,
  passed: false,
  code,
  detail,
  bound,
});

export function assistantCheck(assistant: AssistantInfo | undefined, customerId: string): Check {
  // Another customer's assistant is indistinguishable from a missing one.
  if (!assistant || assistant.customer_id !== customerId)
    return failed('assistant', 'resource.not_found', 'Assistant not found.');
  if (!assistant.is_active)
    return failed(
      'assistant',
      'outbound.assistant_inactive',
      'The assistant is inactive; activate it to place calls.',
    );
  if (assistant.phone_numbers.length === 0)
    return failed(
      'assistant',
      'outbound.assistant_no_phone_number',
      'The assistant has no phone number to call from; add one first.',
    );
  return pass('assistant');
}

/** What an allowlist names the number by: its country (`GB`), or its non-geographic calling code (`+882`). */
function regionOf(parsed: PhoneNumber | undefined): { country: string | null; region: string | null } {
  const country = parsed?.country ?? null;
  const code = parsed ? `+${parsed.countryCallingCode}` : '';
  return { country, region: country ?? (isRegion(code) ? code : null) };
}

/**
 * The number's type, then its region against both bounds: the customer's limits first (no key of the customer can
 * call outside them, whatever its own allowlist says), then the key's allowlist.
 */
export function numberChecks(
  toNumber: string,
  allowedCountries: readonly string[],
  limits: OutboundLimits,
  /** What is sent there, in the sentences: `Calls` or `Messages`. */
  what = 'Calls',
): { checks: Check[]; country: string | null } {
  const parsed = parsePhoneNumberFromString(toNumber);
  const blocked = BLOCKED_TYPES[parsed?.getType() ?? ''];
  const typeCheck = blocked
    ? failed('number_type', 'outbound.number_not_allowed', `${what} to ${blocked} numbers are not allowed.`)
    : pass('number_type');
  const { country, region } = regionOf(parsed);
  const where = country ? `numbers in ${country}` : `numbers of the non-geographic code ${region}`;
  const verb = what === 'Calls' ? 'call' : 'text';
  const refused = (detail: string, bound: Bound | null) =>
    failed('country', 'outbound.country_not_allowed', detail, bound);
  const countryCheck = !region
    ? refused(
        `The number belongs to no country or code an allowlist can name, so no key may ${verb} it.`,
        null,
      )
    : !limits.countries.includes(region)
      ? refused(
          `No API key of this customer may ${verb} ${where}: the outbound limits the operator set allow ${regionList(limits.countries)}.`,
          'customer',
        )
      : !allowedCountries.includes(region)
        ? refused(
            `This API key may not ${verb} ${where}; its allowlist is ${regionList(allowedCountries)}.`,
            'key',
          )
        : pass('country');
  return { checks: [typeCheck, countryCheck], country };
}

export type SpendView = {
  daily_cap_usd: string;
  used_today_usd: string;
  call_estimate_usd: string;
  remaining_usd: string;
  resets_at: string;
};

/**
 * The cap holds when what is settled or reserved today plus this call's estimate stays within it. The cap is the
 * lower of the key's own and the largest its customer's limits allow.
 */
export function spendCheck(
  keyCapUsd: string,
  limits: Pick<OutboundLimits, 'maxDailyCapUsd'>,
  usedUsd: string,
  now: Date,
  /** What a call reserves: the estimate, or nothing for a test-mode call. */
  estimateUnits: bigint = ESTIMATE_UNITS,
  /** What reserves it, and until when, in the refusal's sentence. */
  reserves = 'a call reserves $%s until it ends',
): { check: Check; spend: SpendView } {
  const cap = toUnits(effectiveCap(keyCapUsd, limits));
  const used = toUnits(usedUsd);
  const resetsAt = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  const remaining = cap - used > 0n ? cap - used : 0n;
  const spend = {
    daily_cap_usd: formatUsd(cap, 2),
    used_today_usd: formatUsd(used),
    call_estimate_usd: formatUsd(estimateUnits),
    remaining_usd: formatUsd(remaining),
    resets_at: resetsAt.toISOString(),
  };
  const bound = capBound(keyCapUsd, limits);
  const whose =
    bound === 'key'
      ? `This API key's daily spend cap of $${spend.daily_cap_usd}`
      : `The daily spend cap of $${spend.daily_cap_usd} that the operator allows each key of this customer (this key's own is $${keyCapUsd})`;
  const check =
    used + estimateUnits <= cap
      ? pass('spend_cap')
      : failed(
          'spend_cap',
          'outbound.spend_cap_exceeded',
          `${whose} would be exceeded: $${spend.used_today_usd} is spent or ` +
            `reserved today (UTC) and ${reserves.replace('%s', spend.call_estimate_usd)}. The cap resets at ${spend.resets_at}.`,
          bound,
        );
  return { check, spend };
}

/** Throws the first failed check as the error a real placement answers with. */
export function throwFirstFailure(checks: Check<string>[]): void {
  const first = checks.find((c) => !c.passed);
  if (first?.code) throw new AppError(first.code, first.detail ?? 'The call is not allowed.');
}
