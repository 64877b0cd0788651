import type { Issue } from '../errors/index.ts';

/**
 * The operator's bounds on how long customers keep their calls (CALL_RETENTION_DAYS_DEFAULT, _MIN, _MAX): null
 * default or longest is "for ever".
 */
export type RetentionBounds = { defaultDays: number | null; minDays: number; maxDays: number | null };

/** What an operator who sets none of the variables runs with: calls kept for ever, any choice from a day. */
export const KEEP_FOREVER: RetentionBounds = { defaultDays: null, minDays: 1, maxDays: null };

/** The longest period one can type: a hundred years. */
const MAX_DAYS = 36_500;

/**
 * How long a customer's calls are kept, in days (null: for ever), from its stored choice (null: the default; 0: for
 * ever) held within the operator's bounds: bounds changed later apply to every customer at once, as its outbound
 * limits do, and a "for ever" the bounds no longer allow becomes their longest.
 */
export function retentionDays(chosen: number | null, b: RetentionBounds): number | null {
  const wanted = chosen === null ? b.defaultDays : chosen === 0 ? null : chosen;
  if (wanted === null) return b.maxDays;
  return Math.min(Math.max(wanted, b.minDays), b.maxDays ?? MAX_DAYS);
}

/** A customer's choice: a number of days, "for ever", or the operator's default. */
export type RetentionChoice = number | 'forever' | 'default';

/** Problems of a choice against the bounds (an empty list: it may be stored). */
export function retentionChoiceIssues(choice: RetentionChoice, b: RetentionBounds): Issue[] {
  const path = ['call_retention_days'];
  const range = `from ${b.minDays} to ${b.maxDays ?? MAX_DAYS}`;
  if (choice === 'default') return [];
  if (choice === 'forever') {
    return b.maxDays === null
      ? []
      : [{ path, message: `Calls can be kept for at most ${b.maxDays} days on this service.` }];
  }
  if (!Number.isInteger(choice) || choice < b.minDays || choice > (b.maxDays ?? MAX_DAYS)) {
    return [{ path, message: `Give a whole number of days ${range}.` }];
  }
  return [];
}

/** The stored column of a choice that passed its checks. */
export const storedRetention = (choice: RetentionChoice): number | null =>
  choice === 'default' ? null : choice === 'forever' ? 0 : choice;

/** What the dashboard and the CLI show of a customer's call data settings. */
export type CallDataSettings = {
  /** Days its calls are kept, or null: for ever. */
  call_retention_days: number | null;
  /** Whether that is the operator's default (the customer chose nothing). */
  call_retention_is_default: boolean;
  /** The operator's bounds: the choices it may make. */
  call_retention_min_days: number;
  call_retention_max_days: number | null;
  call_retention_default_days: number | null;
  /** Phone numbers, e-mail addresses and card numbers are masked in stored transcripts and summaries. */
  redact_transcripts: boolean;
};
