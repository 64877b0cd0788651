import { z } from 'zod';
import { TARGET_URL_MAX } from '../delivery/index.ts';
import { isUuid } from '../ids.ts';
import { checkE164 } from '../phone.ts';

export const EXTERNAL_ID_MAX = 255;
export const MAX_KEYS = 50;
export const VARIABLES_MAX_BYTES = 8192;
export const METADATA_MAX_BYTES = 8192;

const CONTROL_RE = /\p{Cc}/u;
const VARIABLE_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Optional fields also accept null, read as "not given" (automation platforms send empty fields as null). */
export const optional = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);

const jsonBytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');

/** Checked against the operator's target policy by the service (src/delivery/target-url.ts). */
const callbackUrl = z.string().max(TARGET_URL_MAX, `Must be at most ${TARGET_URL_MAX} characters.`);

const scalar = z.union([
  z.string().max(1000, 'Values are at most 1000 characters.'),
  z.number().finite(),
  z.boolean(),
]);

/** Dynamic variables for the assistant's script: flat, named like template variables, bounded. */
const variables = z
  .record(z.string().regex(VARIABLE_NAME_RE, 'Variable names are letters, digits and _, up to 64.'), scalar)
  .refine((v) => Object.keys(v).length <= MAX_KEYS, `At most ${MAX_KEYS} variables.`)
  .refine((v) => jsonBytes(v) <= VARIABLES_MAX_BYTES, `At most ${VARIABLES_MAX_BYTES} bytes as JSON.`);

/** Free-form key/value data kept with the call (spec 2.6): flat, keys up to 40 characters. */
export const metadata = z
  .record(z.string().min(1).max(40, 'Keys are at most 40 characters.'), z.union([scalar, z.null()]))
  .refine((v) => Object.keys(v).length <= MAX_KEYS, `At most ${MAX_KEYS} keys.`)
  .refine((v) => jsonBytes(v) <= METADATA_MAX_BYTES, `At most ${METADATA_MAX_BYTES} bytes as JSON.`);

/** An E.164 number, held to the strict check of phone.ts. */
export const e164Number = z.string().superRefine((value, ctx) => {
  const check = checkE164(value);
  if (!check.ok) ctx.addIssue({ code: 'custom', message: check.reason });
});

/** A client's own reference: echoed, searchable, never interpreted. */
export const externalId = z
  .string()
  .min(1, 'Must not be empty.')
  .max(EXTERNAL_ID_MAX, `Must be at most ${EXTERNAL_ID_MAX} characters.`)
  .refine((s) => !CONTROL_RE.test(s), 'Must not contain control characters.');

/** An assistant's id in a request body, taken in any case; `description` says what the assistant does there. */
export const assistantIdField = (description: string) =>
  z
    .string()
    .refine(isUuid, 'Must be a UUID.')
    .transform((s) => s.toLowerCase())
    .meta({ type: 'string', format: 'uuid', description });

/** POST /outbound-calls body (spec 2.6): assistant_id and to_number required; the rest optional. */
export const outboundCallBody = z.strictObject({
  assistant_id: assistantIdField('The assistant that places the call (active, with a number).'),
  to_number: e164Number.meta({
    description:
      "E.164 destination, in a country of the key's allowlist (a number of no country, such as +882…, only " +
      'where the allowlist names its code).',
    examples: ['+14155550123'],
  }),
  callback_url: optional(callbackUrl).meta({
    description: 'https:// URL for call.queued, call.ringing, call.answered and call.ended notifications.',
  }),
  metadata: optional(metadata).meta({ description: 'Free-form flat key/value data kept with the call.' }),
  external_id: optional(externalId).meta({
    description: 'Your own reference, echoed on the call and in call.insight.received.',
  }),
  variables: optional(variables).meta({
    description: "Dynamic variables for the assistant's script; echoed with external_id.",
  }),
});
export type OutboundCallBody = z.output<typeof outboundCallBody>;

/**
 * `dry_run=true` never reaches placement: it is routed to `POST /outbound-calls/dry-run` first (dry-run-alias.ts),
 * so this operation documents and takes only `false`, the same as no parameter; a `true` that ever got here would
 * be refused, not placed.
 */
export const outboundCallQuery = z.strictObject({
  dry_run: optional(z.literal('false', 'Must be true or false.')).meta({
    type: 'string',
    deprecated: true,
    description:
      'The earlier form of `POST /outbound-calls/dry-run`, kept for v1 clients: `dry_run=true` is answered by ' +
      'that operation (`200`, `OutboundDryRun`, nothing placed), not by this one; `false` is the same as leaving ' +
      'it out.',
  }),
});
