import { findAssistant } from '../assistants/index.ts';
import { type Clock, utcDay } from '../clock.ts';
import type { Database } from '../db/index.ts';
import type { Principal } from '../keys/index.ts';
import { assistantCheck, type Check, numberChecks, type SpendView, spendCheck } from './checks.ts';
import type { OutboundCallBody } from './outbound.schema.ts';
import { spentOnDay } from './spend.repository.ts';

export type DryRunView = {
  allowed: boolean;
  checks: Check[];
  to_number: string;
  country: string | null;
  from_number: string | null;
  spend: SpendView;
  livemode: boolean;
};

/**
 * The answer a real placement would give, check by check, without reserving or calling anyone.
 * Unlike a placement it reports every check, not only the first that fails.
 */
export async function dryRun(
  deps: { db: Database; clock: Clock },
  p: Principal,
  body: OutboundCallBody,
): Promise<DryRunView> {
  const now = deps.clock.now();
  const assistant = await findAssistant(deps.db, body.assistant_id);
  const owned = assistantCheck(assistant, p.accountId);
  const numbers = numberChecks(body.to_number, p.allowedCountries, p.outboundLimits);
  const used = await spentOnDay(deps.db, p.keyId, utcDay(now));
  // A test-mode call reserves nothing: the check passes whatever the cap, and says the call costs 0.
  const live = p.mode === 'live';
  const { check, spend } = spendCheck(p.dailySpendCapUsd, p.outboundLimits, used, now, live ? undefined : 0n);
  const checks = [owned, ...numbers.checks, check];
  return {
    allowed: checks.every((c) => c.passed),
    checks,
    to_number: body.to_number,
    country: numbers.country,
    from_number: owned.passed ? (assistant?.phone_numbers[0] ?? null) : null,
    spend,
    livemode: live,
  };
}
