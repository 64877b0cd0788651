import type { ElevenLabs } from '@elevenlabs/elevenlabs-js';
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

type Analysis = {
  data: Record<string, { value?: unknown }> | undefined;
  criteria: Record<string, { result: string }> | undefined;
  success: string | undefined;
};

/** Insights: each data-collection result by its id, each evaluation criterion, and the call's success verdict. */
function insightsOf(a: Analysis | null): { name: string; result: unknown }[] {
  if (!a) return [];
  return [
    ...Object.entries(a.data ?? {}).map(([name, r]) => ({ name, result: r.value ?? null })),
    ...Object.entries(a.criteria ?? {}).map(([name, r]) => ({
      name: `evaluation.${name}`,
      result: r.result,
    })),
    ...(a.success ? [{ name: 'call_successful', result: a.success }] : []),
  ];
}

const turnsOf = (t: { role: string; message?: string | null; time: number }[]) =>
  t
    .filter((x) => x.message)
    .map((x) => ({
      role: x.role === 'agent' ? ('agent' as const) : ('user' as const),
      message: x.message ?? '',
      offsetSeconds: x.time,
    }));

/** From the SDK's parsed `GetConversationResponseModel` (api/types/GetConversationResponseModel.d.ts). */
export function factsFromSdk(c: ElevenLabs.GetConversationResponseModel): ConversationFacts {
  const m = c.metadata;
  const phone = m.phoneCall && m.phoneCall.type !== 'exotel' ? m.phoneCall : null;
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
    insights: insightsOf(
      c.analysis
        ? {
            data: c.analysis.dataCollectionResults,
            criteria: c.analysis.evaluationCriteriaResults,
            success: c.analysis.callSuccessful,
          }
        : null,
    ),
    turns: turnsOf(
      c.transcript.map((t) => ({ role: t.role, message: t.message ?? null, time: t.timeInCallSecs })),
    ),
    hasAudio: c.hasAudio,
  };
}

const opt = <T extends z.ZodType>(s: T) => s.nullish();

/**
 * The wire form (serialization/types/GetConversationResponseModel.d.ts and the models it names), only the fields
 * we use; anything else passes. The webhook's `data` is this model (ElevenLabs' post-call webhook page).
 */
const wireConversation = z.object({
  agent_id: z.string(),
  conversation_id: z.string(),
  status: z.enum(['initiated', 'in-progress', 'processing', 'done', 'failed']),
  has_audio: opt(z.boolean()),
  metadata: z.object({
    start_time_unix_secs: z.number(),
    accepted_time_unix_secs: opt(z.number()),
    call_duration_secs: z.number(),
    cost_fiat: opt(z.number()),
    termination_reason: opt(z.string()),
    phone_call: opt(
      z.object({
        type: z.string(),
        direction: z.enum(['inbound', 'outbound']),
        agent_number: z.string(),
        external_number: z.string(),
        call_result: opt(z.enum(['answered', 'voicemail', 'busy', 'no_answer', 'failed'])),
      }),
    ),
  }),
  analysis: opt(
    z.object({
      transcript_summary: z.string(),
      call_successful: opt(z.string()),
      data_collection_results: opt(z.record(z.string(), z.object({ value: z.unknown() }))),
      evaluation_criteria_results: opt(z.record(z.string(), z.object({ result: z.string() }))),
    }),
  ),
  conversation_initiation_client_data: opt(z.object({ user_id: opt(z.string()) })),
  transcript: opt(
    z.array(z.object({ role: z.string(), message: opt(z.string()), time_in_call_secs: z.number() })),
  ),
});

export function factsFromWire(raw: unknown): ConversationFacts | null {
  const parsed = wireConversation.safeParse(raw);
  if (!parsed.success) return null;
  const c = parsed.data;
  const m = c.metadata;
  const phone = m.phone_call && m.phone_call.type !== 'exotel' ? m.phone_call : null;
  return {
    conversationId: c.conversation_id,
    agentId: c.agent_id,
    status: c.status,
    startUnix: m.start_time_unix_secs,
    acceptedUnix: m.accepted_time_unix_secs ?? null,
    durationSeconds: m.call_duration_secs,
    costFiatUsd: m.cost_fiat ?? null,
    terminationReason: m.termination_reason ?? null,
    phone: phone
      ? {
          direction: phone.direction,
          agentNumber: phone.agent_number,
          externalNumber: phone.external_number,
          callResult: phone.call_result ?? null,
        }
      : null,
    userId: c.conversation_initiation_client_data?.user_id ?? null,
    summary: c.analysis?.transcript_summary ?? null,
    insights: insightsOf(
      c.analysis
        ? {
            data: c.analysis.data_collection_results ?? undefined,
            criteria: c.analysis.evaluation_criteria_results ?? undefined,
            success: c.analysis.call_successful ?? undefined,
          }
        : null,
    ),
    turns: turnsOf(
      (c.transcript ?? []).map((t) => ({
        role: t.role,
        message: t.message ?? null,
        time: t.time_in_call_secs,
      })),
    ),
    hasAudio: c.has_audio ?? false,
  };
}
