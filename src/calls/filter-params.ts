import { queryParam } from '../pagination/index.ts';
import { checkE164 } from '../phone.ts';
import { formatUsd, toUnits } from './billing.ts';
import { CALL_STATUSES, type CallStatus } from './call-status.ts';

// The parsers of GET /calls' filters that pagination/ does not have; calls.filter.ts puts them together.

type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * `status`: one status or several, comma-separated (`completed,no_answer`), since a repeated parameter is
 * refused. Parsed to the distinct statuses in CALL_STATUSES order, so equal sets bind equal cursors.
 */
export const statusParam = () =>
  queryParam<CallStatus[]>(
    (raw) => {
      const given = raw.split(',');
      const unknown = given.filter((s) => !(CALL_STATUSES as readonly string[]).includes(s));
      if (unknown.length > 0)
        return {
          ok: false,
          message: `Must be one or more of, comma-separated: ${CALL_STATUSES.join(', ')}.`,
        };
      return { ok: true, value: CALL_STATUSES.filter((s) => given.includes(s)) };
    },
    {
      description:
        'Only calls in one of these statuses; one value or several, comma-separated (e.g. `completed,no_answer`). ' +
        `Values: ${CALL_STATUSES.map((s) => `\`${s}\``).join(', ')}.`,
      pattern: `^(${CALL_STATUSES.join('|')})(,(${CALL_STATUSES.join('|')}))*$`,
      examples: ['completed,no_answer'],
    },
  );

/** A phone number held to phone.ts's strict check; a leading space is an unencoded `+` (it arrives as a space). */
export const e164Param = (description: string) =>
  queryParam<string>(
    (raw): Parsed<string> => {
      const check = checkE164(raw.startsWith(' ') ? `+${raw.slice(1)}` : raw);
      return check.ok ? { ok: true, value: check.e164 } : { ok: false, message: check.reason };
    },
    { description, examples: ['+14155550123'] },
  );

const CONTROL_RE = /\p{Cc}/u;

/** Exact text: 1 to `max` characters, no control characters (as POST /outbound-calls takes `external_id`). */
export const exactParam = (max: number, description: string) =>
  queryParam<string>(
    (raw): Parsed<string> =>
      raw.length >= 1 && raw.length <= max && !CONTROL_RE.test(raw)
        ? { ok: true, value: raw }
        : { ok: false, message: `Must be 1 to ${max} characters, without control characters.` },
    { description, minLength: 1, maxLength: max },
  );

const USD_RE = /^\d{1,8}(\.\d{1,4})?$/;

/** USD with at most 4 decimals, as `cost` is kept (numeric(12,4)); normalised to 4 places, never a float. */
export const usdParam = (description: string) =>
  queryParam<string>(
    (raw): Parsed<string> =>
      USD_RE.test(raw)
        ? { ok: true, value: formatUsd(toUnits(raw)) }
        : {
            ok: false,
            message: 'Must be an amount of USD such as 0.25 (at most 4 decimals, 8 digits before).',
          },
    { description, pattern: USD_RE.source, examples: ['0.25'] },
  );

export const booleanParam = (description: string) =>
  queryParam<boolean>(
    (raw): Parsed<boolean> =>
      raw === 'true' || raw === 'false'
        ? { ok: true, value: raw === 'true' }
        : { ok: false, message: 'Must be true or false.' },
    { type: 'boolean', description },
  );

/** 32-bit, as the column. */
export const MAX_SECONDS = 2_147_483_647;
