import { findCallForTranscript, isTerminal, markHasTranscript } from '../calls/index.ts';
import type { Clock } from '../clock.ts';
import { redactsCallData } from '../customers/index.ts';
import type { Database } from '../db/index.ts';
import { providerForMode, type VoiceProvider } from '../provider/index.ts';
import { redactText } from '../redaction.ts';
import {
  boundedWebhookTranscript,
  type RestSegment,
  type RestTranscript,
  restTranscript,
  segmentsFromTurns,
} from './transcript-format.ts';
import * as repo from './transcripts.repository.ts';

/** A transcript as stored, with the call facts its two forms need. */
export type StoredTranscript = {
  callId: string;
  conversationId: string;
  assistantId: string;
  language: string;
  durationSeconds: number;
  rest: RestTranscript;
};

/**
 * What fetching a transcript can come to. Nothing here throws for an expected outcome:
 * - stored: it is stored now (fetched this time or before);
 * - pending: not ready yet (settling upstream, or the call is still going on); ask again later;
 * - unavailable: the provider failed; retryable;
 * - absent: there is no such call (`no_call`), or there will never be a transcript.
 */
export type FetchResult =
  | { state: 'stored'; transcript: StoredTranscript }
  | { state: 'pending'; callId: string; conversationId: string | null; retryAfterSeconds: number }
  | { state: 'unavailable'; retryable: true; detail: string }
  | { state: 'absent'; reason: 'no_call' | 'no_conversation' | 'gone_upstream' };

/** Segments with phone numbers, e-mail addresses and card numbers masked (the customer's redaction). */
const redactSegments = (segments: RestSegment[]): RestSegment[] =>
  segments.map((s) => ({ ...s, text: redactText(s.text) }));

/** Until the call is answered there is no conversation to ask about; look again after this. */
const UNANSWERED_RETRY_SECONDS = 15;

export function createTranscriptsService(deps: {
  db: Database;
  clock: Clock;
  provider: VoiceProvider;
  testProvider?: VoiceProvider | undefined;
}) {
  const { db, clock } = deps;

  return {
    /** Stored → returned; else fetched from the provider and stored (spec 3.2). */
    async fetchAndStore(
      customerId: string,
      callId: string,
      options: { outboundOnly?: boolean } = {},
    ): Promise<FetchResult> {
      const call = await findCallForTranscript(db, customerId, callId);
      if (!call || (options.outboundOnly && !(call.direction === 'outbound' && call.api_initiated))) {
        return { state: 'absent', reason: 'no_call' };
      }
      // Masked before it is stored, and when read (a transcript stored before the customer asked for it): both
      // forms, REST and call.transcript.ready, come from here.
      const redact = await redactsCallData(db, customerId);
      const shown = (segments: RestSegment[]) => (redact ? redactSegments(segments) : segments);
      const stored = (conversationId: string, segments: RestSegment[]): FetchResult => ({
        state: 'stored',
        transcript: {
          callId: call.id,
          conversationId,
          assistantId: call.assistant_id,
          language: call.language,
          durationSeconds: call.duration_seconds ?? 0,
          rest: restTranscript(shown(segments)),
        },
      });
      const saved = await repo.findTranscript(db, call.id);
      if (saved) return stored(saved.conversation_id, saved.segments as RestSegment[]);
      if (!call.conversation_id) {
        return isTerminal(call.status)
          ? { state: 'absent', reason: 'no_conversation' }
          : {
              state: 'pending',
              callId: call.id,
              conversationId: null,
              retryAfterSeconds: UNANSWERED_RETRY_SECONDS,
            };
      }
      const conversationId = call.conversation_id;
      const result = await providerForMode(deps, call.livemode).getConversation(conversationId);
      if (!result.ok) {
        return result.error.retryable
          ? { state: 'unavailable', retryable: true, detail: result.error.detail }
          : { state: 'absent', reason: 'gone_upstream' };
      }
      const { transcript } = result.value;
      if (transcript.state === 'settling') {
        return {
          state: 'pending',
          callId: call.id,
          conversationId,
          retryAfterSeconds: transcript.retryAfterSeconds,
        };
      }
      const segments = shown(segmentsFromTurns(transcript.turns, call.answered_at ?? call.started_at));
      const now = clock.now();
      await db.transaction().execute(async (tx) => {
        await repo.insertTranscript(tx, { callId: call.id, customerId, conversationId, segments, now });
        await markHasTranscript(tx, call.id, now);
      });
      // Whoever stored it first wins; everyone returns what is stored.
      const again = await repo.findTranscript(db, call.id);
      return stored(again?.conversation_id ?? conversationId, (again?.segments as RestSegment[]) ?? segments);
    },
  };
}

/** GET …/transcript 200 body (spec 2.5). */
export const restView = (t: StoredTranscript) => ({
  call_id: t.callId,
  conversation_id: t.conversationId,
  transcript: t.rest,
});

/** The `data` of a `call.transcript.ready` event (spec 6.4), in the webhook form. */
export function transcriptReadyData(t: StoredTranscript): Record<string, unknown> {
  const { transcript, truncated } = boundedWebhookTranscript(t.rest);
  return {
    call_id: t.callId,
    conversation_id: t.conversationId,
    assistant_id: t.assistantId,
    duration_seconds: t.durationSeconds,
    language: t.language,
    transcript,
    truncated,
  };
}

export type TranscriptsService = ReturnType<typeof createTranscriptsService>;
