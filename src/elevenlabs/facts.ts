import { z } from 'zod';
import { model, opt, type Read, readAnswer } from './answers.ts';

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

/**
 * The conversation model (api/types/GetConversationResponseModel.d.ts and the models it names; on the wire
 * serialization/types/…), only the fields we use; anything else passes. The webhook's `data` is this model
 * (ElevenLabs' post-call webhook page). Needed: the ids, the status, the start and the length, and of a phone
 * call its direction and both numbers; the rest (analysis, cost, audio flag, telephony result, our call id, the
 * transcript) is read when it is there. A transcript turn needs its role and its time.
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
    // Exotel calls carry other fields; we read Twilio and SIP trunk ones (an Exotel call reads as no phone call).
    phoneCall: z.preprocess(
      (v) => (v && typeof v === 'object' && (v as { type?: unknown }).type === 'exotel' ? null : v),
      opt(
        model({
          direction: z.enum(['inbound', 'outbound']),
          agentNumber: z.string(),
          externalNumber: z.string(),
          // A result named after our time (a new enum value) reads as none: the status still tells the end.
          callResult: opt(z.enum(['answered', 'voicemail', 'busy', 'no_answer', 'failed'])).catch(null),
        }),
      ),
    ),
  }),
  analysis: opt(
    model({
      transcriptSummary: opt(z.string()),
      callSuccessful: opt(z.string()),
      dataCollectionResults: opt(z.record(z.string(), z.object({ value: z.unknown() }))),
      evaluationCriteriaResults: opt(z.record(z.string(), z.object({ result: opt(z.string()) }))),
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
      result: r.result ?? null,
    })),
    ...(a.callSuccessful ? [{ name: 'call_successful', result: a.callSuccessful }] : []),
  ];
}

/**
 * From the SDK's parsed `GetConversationResponseModel`, the raw body of `GET …/conversations/{id}` or the `data` of
 * a `post_call_transcription` webhook, as received; else each field we need that it lacks.
 */
export function readConversation(raw: unknown): Read<ConversationFacts> {
  const read = readAnswer(conversationModel, raw);
  return read.ok ? { ok: true, value: factsOf(read.value) } : read;
}

function factsOf(c: z.output<typeof conversationModel>): ConversationFacts {
  const m = c.metadata;
  const phone = m.phoneCall ?? null;
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
