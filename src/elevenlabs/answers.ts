import { z } from 'zod';

/**
 * Our own reading of ElevenLabs' answers: only the fields we use, each by its wire name (snake case) or the SDK's
 * (camel case), anything else passing. The SDK is regenerated from ElevenLabs' schema and refuses a whole answer
 * when one field it declares required is missing (elevenlabs/elevenlabs-js#232), even one we never read; these
 * schemas decide what an answer must carry for us, and name what it lacks.
 */

export const opt = <T extends z.ZodType>(s: T) => s.nullish();
const snakeToCamel = (key: string) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const camelToSnake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * An object of the model under the SDK's (camel case) names, read from either form: its own keys are renamed from
 * the wire's snake case, not those of the records inside it (data collection ids are the customer's own).
 */
export const model = <T extends z.ZodRawShape>(shape: T) =>
  z.preprocess(
    (v) =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [snakeToCamel(k), x]))
        : v,
    z.object(shape),
  );

export type Read<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** A field as the wire names it: `metadata.start_time_unix_secs`, `transcript[3].role`. */
function wireField(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i > 0 ? '.' : ''}${camelToSnake(String(p))}`))
    .join('');
}

/** The answer read with our schema, or each field we need that it lacks or carries wrong, by its wire name. */
export function readAnswer<S extends z.ZodType>(schema: S, value: unknown): Read<z.output<S>> {
  const parsed = schema.safeParse(value, { reportInput: true });
  if (parsed.success) return { ok: true, value: parsed.data };
  const problems = parsed.error.issues.map((issue) => {
    const field = wireField(issue.path) || 'the answer';
    const missing = 'input' in issue && issue.input === undefined;
    return missing ? `${field} is missing` : `${field} is not what we expect (${issue.message})`;
  });
  return { ok: false, problems: [...new Set(problems)] };
}

/** A reader of answers of this schema. */
export const reading =
  <S extends z.ZodType>(schema: S) =>
  (value: unknown): Read<z.output<S>> =>
    readAnswer(schema, value);

/** `GET /v1/convai/conversations`: the ids of one page and where the next one starts. */
export const conversationsPage = model({
  conversations: z.array(model({ conversationId: z.string() })),
  nextCursor: opt(z.string()),
  hasMore: opt(z.boolean()),
});

/**
 * `POST /v1/convai/twilio/outbound-call` and `…/sip-trunk/outbound-call`. The conversation id is needed only when
 * the placement succeeded (a refusal carries none); the carrier's id (`callSid`, camel case on the wire even so,
 * or `sip_call_id`) is a nicety.
 */
export const placementAnswer = model({
  success: z.boolean(),
  message: opt(z.string()),
  conversationId: opt(z.string()),
  callSid: opt(z.string()),
  sipCallId: opt(z.string()),
}).refine((a) => !a.success || Boolean(a.conversationId), {
  path: ['conversationId'],
  message: 'a successful placement must name its conversation',
});

/** `GET /v1/convai/agents/{id}`. */
export const agentAnswer = model({ agentId: z.string(), name: opt(z.string()) });

/** `GET /v1/convai/agents?page_size=1`: the probe reads nothing of it but that it is a page. */
export const agentsPage = model({ agents: z.array(z.unknown()) });

/**
 * `GET /v1/convai/phone-numbers/{id}`: the number, its telephony (`provider`) and the agent it is assigned to, if
 * any (an unassigned number answers `assigned_agent: null`, which the SDK reads as absent: both mean none).
 */
export const phoneNumberAnswer = model({
  phoneNumberId: z.string(),
  phoneNumber: z.string(),
  provider: z.string(),
  assignedAgent: opt(model({ agentId: z.string() })),
});
