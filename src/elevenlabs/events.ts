import type {
  Conversation,
  ConversationDetails,
  ProviderEndStatus,
  ProviderEvent,
} from '../provider/index.ts';
import type { ConversationFacts } from './facts.ts';

/** While ElevenLabs is still `processing` (the spec's "settling"), ask for the transcript again after this. */
export const SETTLING_RETRY_SECONDS = 10;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Money as our exact decimal string (4 places, numeric(12,4)); the provider reports a float in USD. */
export const usd = (amount: number): string => (Math.round(amount * 10_000) / 10_000).toFixed(4);

function answered(f: ConversationFacts): boolean {
  if (f.phone?.callResult) return f.phone.callResult === 'answered' || f.phone.callResult === 'voicemail';
  return f.status !== 'initiated' && f.status !== 'failed' ? true : f.acceptedUnix !== null;
}

function unansweredStatus(f: ConversationFacts): ProviderEndStatus {
  if (f.phone?.callResult === 'busy') return 'busy';
  if (f.phone?.callResult === 'no_answer') return 'no_answer';
  return 'failed';
}

/**
 * The events ElevenLabs would have sent for one conversation, in order. `initiated` → ringing (or, inbound, the
 * call arriving); `in-progress` → answered; `processing` and `done` → ended (`processing` is still settling: the
 * analysis and transcript come with `done`); `failed` → ended with the telephony result. `assistantId` is the
 * assistant linked to the conversation's agent: it creates an inbound call, and bounds which calls an outbound
 * conversation's `user_id` may name (`claimedBy`).
 */
export function eventsOf(f: ConversationFacts, assistantId: string | null): ProviderEvent[] {
  const providerCallId = f.conversationId;
  const start = new Date(f.startUnix * 1000);
  const inbound = f.phone?.direction === 'inbound';
  const callId = !inbound && f.userId && UUID_RE.test(f.userId) ? f.userId : null;
  const named = { providerCallId, callId, ...(callId ? { claimedBy: { assistantId } } : {}) };
  const events: ProviderEvent[] = [];
  if (inbound) {
    if (assistantId && f.phone) {
      events.push({
        type: 'call.inbound',
        providerCallId,
        assistantId,
        from: f.phone.externalNumber,
        to: f.phone.agentNumber,
        callerName: null,
        at: start,
      });
    }
  } else {
    events.push({ type: 'call.ringing', ...named, at: start });
  }
  if (f.status === 'initiated') return events;
  const wasAnswered = answered(f);
  const answeredAt = new Date((f.acceptedUnix ?? f.startUnix) * 1000);
  if (wasAnswered) {
    events.push({
      type: 'call.answered',
      ...named,
      conversationId: f.conversationId,
      at: answeredAt,
    });
  }
  if (f.status === 'in-progress') return events;
  const status: ProviderEndStatus = !wasAnswered
    ? unansweredStatus(f)
    : f.status === 'failed'
      ? 'failed'
      : 'completed';
  events.push({
    type: 'call.ended',
    ...named,
    status,
    disconnectReason: f.terminationReason ?? (f.status === 'failed' ? 'failed' : 'ended'),
    at: new Date((wasAnswered ? answeredAt.getTime() : start.getTime()) + f.durationSeconds * 1000),
  });
  return events;
}

/** Details once the conversation is over and analysed (`done`, or `failed` with what there is). */
export function conversationOf(f: ConversationFacts): Conversation {
  const over = f.status === 'done' || f.status === 'failed';
  const details: ConversationDetails | null = over
    ? {
        durationSeconds: Math.round(f.durationSeconds),
        summary: f.summary ?? '',
        insights: f.insights,
        hasTranscript: f.turns.length > 0,
        recordingAvailable: f.hasAudio,
        costUsd: f.costFiatUsd === null ? null : usd(f.costFiatUsd),
      }
    : null;
  return {
    conversationId: f.conversationId,
    details,
    transcript: over
      ? { state: 'ready', turns: f.turns }
      : { state: 'settling', retryAfterSeconds: SETTLING_RETRY_SECONDS },
  };
}
