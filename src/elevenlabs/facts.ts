import { z } from 'zod';

/**
 * What we read of one ElevenLabs conversation, whichever way it reached us: `GET /v1/convai/conversations/{id}`
 * through the SDK (camel case, `GetConversationResponseModel`) or the `data` of a `post_call_transcription`
 * webhook (snake case, the same model on the wire). Field sources: docs/provider-elevenlabs.md.
 */
export type ConversationFacts = {
  conversationId: string;
  agentId: string;
  status: 'initiated' | 'in-progress' | 'processing' | 'done' | 'failed';
  startUnix: number;
  acceptedUnix: number | null;
  durationSeconds: number;
  costFiatUsd: number | null;
  terminationReason: string | null;
  phone: {
    direction: 'inbound' | 'outbound';
    agentNumber: string;
    externalNumber: string;
    callResult: 'answered' | 'voicemail' | 'busy' | 'no_answer' | 'failed' | null;
  } | null;
  /** `conversation_initiation_client_data.user_id`: our call id on calls we placed. */
  userId: string | null;
  summary: string | null;
  insights: { name: string; result: unknown }[];
  turns: { role: 'agent' | 'user'; message: string; offsetSeconds: number }[];
  hasAudio: boolean;
};

const opt = <T extends z.ZodType>(s: T) => s.nullish();
const snakeToCamel = (key: string) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
/**
 * An object of the model under the SDK's (camel case) names, read from either form: its own keys are renamed from
 * the wire's snake case, not those of the records inside it (data collection ids are the customer's own).
 */
const model = <T extends z.ZodRawShape>(shape: T) =>
  z.preprocess(
    (v) =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [snakeToCamel(k), x]))
        : v,
    z.object(shape),
  );

/**
 * The conversation model (api/types/GetConversationResponseModel.d.ts and the models it names; on the wire
 * serialization/types/…), only the fields we use; anything else passes. The webhook's `data` is this model
 * (ElevenLabs' post-call webhook page).
 */
const conversationModel = model({
  agentId: z.string(),
  conversationId: z.string(),
  status: z.enum(['initiated', 'in-progress', 'processing', 'done', 'failed']),
  hasAudio: opt(z.boolean()),
  metadata: model({
    startTimeUnixSecs: z.number(),
    acceptedTimeUnixSecs: opt(z.number()),
    callDurationSecs: z.number(),
    costFiat: opt(z.number()),
    terminationReason: opt(z.string()),
    // Exotel calls carry other fields; we read Twilio and SIP trunk ones.
    phoneCall: opt(
      z.union([
        model({ type: z.literal('exotel') }),
        model({
          type: z.string(),
          direction: z.enum(['inbound', 'outbound']),
          agentNumber: z.string(),
          externalNumber: z.string(),
          callResult: opt(z.enum(['answered', 'voicemail', 'busy', 'no_answer', 'failed'])),
        }),
      ]),
    ),
  }),
  analysis: opt(
    model({
      transcriptSummary: z.string(),
      callSuccessful: opt(z.string()),
      dataCollectionResults: opt(z.record(z.string(), z.object({ value: z.unknown() }))),
      evaluationCriteriaResults: opt(z.record(z.string(), z.object({ result: z.string() }))),
    }),
  ),
  conversationInitiationClientData: opt(model({ userId: opt(z.string()) })),
  transcript: opt(z.array(model({ role: z.string(), message: opt(z.string()), timeInCallSecs: z.number() }))),
});

/** Insights: each data-collection result by its id, each evaluation criterion, and the call's success verdict. */
function insightsOf(a: z.output<typeof conversationModel>['analysis']): ConversationFacts['insights'] {
  if (!a) return [];
  return [
    ...Object.entries(a.dataCollectionResults ?? {}).map(([name, r]) => ({ name, result: r.value ?? null })),
    ...Object.entries(a.evaluationCriteriaResults ?? {}).map(([name, r]) => ({
      name: `evaluation.${name}`,
      result: r.result,
    })),
    ...(a.callSuccessful ? [{ name: 'call_successful', result: a.callSuccessful }] : []),
  ];
}

/**
 * From the SDK's parsed `GetConversationResponseModel` or the `data` of a `post_call_transcription` webhook, as
 * received (null when it is not a conversation we can read).
 */
export function conversationFacts(raw: unknown): ConversationFacts | null {
  const parsed = conversationModel.safeParse(raw);
  if (!parsed.success) return null;
  const c = parsed.data;
  const m = c.metadata;
  const phone = m.phoneCall && 'agentNumber' in m.phoneCall ? m.phoneCall : null;
  return {
    conversationId: c.conversationId,
    agentId: c.agentId,
    status: c.status,
    startUnix: m.startTimeUnixSecs,
    acceptedUnix: m.acceptedTimeUnixSecs ?? null,
    durationSeconds: m.callDurationSecs,
    costFiatUsd: m.costFiat ?? null,
    terminationReason: m.terminationReason ?? null,
    phone: phone
      ? {
          direction: phone.direction,
          agentNumber: phone.agentNumber,
          externalNumber: phone.externalNumber,
          callResult: phone.callResult ?? null,
        }
      : null,
    userId: c.conversationInitiationClientData?.userId ?? null,
    summary: c.analysis?.transcriptSummary ?? null,
    insights: insightsOf(c.analysis),
    turns: (c.transcript ?? [])
      .filter((t) => t.message)
      .map((t) => ({
        role: t.role === 'agent' ? ('agent' as const) : ('user' as const),
        message: t.message ?? '',
        offsetSeconds: t.timeInCallSecs,
      })),
    hasAudio: c.hasAudio ?? false,
  };
}
