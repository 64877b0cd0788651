import { z } from 'zod';
import { isUuid } from '../ids.ts';
import { type Instant, parseInstant, TIMESTAMP_HINT } from './instant.ts';

type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };
const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const fail = <T>(message: string): Parsed<T> => ({ ok: false, message });

/**
 * One query parameter, optional. Query values arrive as strings, or as arrays when a parameter is
 * repeated; a repeated parameter is refused rather than silently taking the first or last value.
 */
export function queryParam<T>(parse: (raw: string) => Parsed<T>, doc: Record<string, unknown> = {}) {
  return (
    z
      .unknown()
      .transform((value, ctx): T => {
        const parsed: Parsed<T> = Array.isArray(value)
          ? fail('Give this parameter once, not repeated.')
          : typeof value === 'string'
            ? parse(value)
            : fail('Must be a single value.');
        if (parsed.ok) return parsed.value;
        ctx.addIssue({ code: 'custom', message: parsed.message });
        return z.NEVER;
      })
      // What the value looks like on the wire, for the OpenAPI document (the parser above is the rule).
      .meta({ type: 'string', ...doc })
      .optional()
  );
}

const DIGITS_RE = /^\d{1,10}$/;

/** A whole number in [min, max], written in plain decimal digits. */
export const intParam = (min: number, max: number) =>
  queryParam<number>(
    (raw) => {
      const value = DIGITS_RE.test(raw) ? Number(raw) : Number.NaN;
      return value >= min && value <= max ? ok(value) : fail(`Must be a whole number from ${min} to ${max}.`);
    },
    { type: 'integer', minimum: min, maximum: max },
  );

export const uuidParam = () =>
  queryParam<string>((raw) => (isUuid(raw) ? ok(raw.toLowerCase()) : fail('Must be a UUID.')), {
    format: 'uuid',
  });

export const enumParam = <const T extends string>(values: readonly T[]) =>
  queryParam<T>(
    (raw) =>
      (values as readonly string[]).includes(raw)
        ? ok(raw as T)
        : fail(`Must be one of: ${values.join(', ')}.`),
    { enum: values },
  );

/** ISO-8601 with offset; `ceil` for lower bounds, `floor` for upper bounds (see parseInstant). */
export const instantParam = (rounding: 'floor' | 'ceil') =>
  queryParam<Instant>(
    (raw) => {
      const instant = parseInstant(raw, rounding);
      return instant ? ok(instant) : fail(`${TIMESTAMP_HINT} Years 1970 to 9999.`);
    },
    { format: 'date-time' },
  );

/** An opaque token; its contents are checked by the cursor codec, which knows the request's filters. */
export const tokenParam = (maxLength: number) =>
  queryParam<string>(
    (raw) =>
      raw.length > 0 && raw.length <= maxLength
        ? ok(raw)
        : fail('Must be a `next_cursor` value from this API.'),
    { maxLength },
  );

/** Path parameter `id`: a UUID (a malformed id is 422, never a 404). */
export const idParams = z.strictObject({
  id: z
    .string()
    .refine(isUuid, 'Must be a UUID.')
    .transform((s) => s.toLowerCase())
    .meta({ type: 'string', format: 'uuid' }),
});
