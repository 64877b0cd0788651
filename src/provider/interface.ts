/**
 * The boundary to the upstream voice provider. Everything the rest of the service knows about a
 * provider is here; the built-in simulator (simulator.ts) is one implementation. Expected failures
 * are values (ProviderResult), never exceptions.
 */

/** Telephony statuses a provider reports; ours (calls/call-status.ts) are the same names. */
export type ProviderEndStatus = 'completed' | 'no_answer' | 'busy' | 'failed' | 'canceled';

export type ProviderErrorCode =
  /** The provider refused or could not be reached: nothing happened upstream. */
  | 'unavailable'
  /** No answer in time, or one we cannot read: the request may or may not have taken effect upstream. */
  | 'timeout'
  /** The provider does not know the thing asked for. */
  | 'not_found'
  /** The provider refused for now (its concurrency limit); nothing happened upstream; try after `retryAfterSeconds`. */
  | 'busy';

export type ProviderError = {
  code: ProviderErrorCode;
  retryable: boolean;
  detail: string;
  retryAfterSeconds?: number;
  /** The provider's HTTP status, when one answered (its health tells a refused key from an unreachable host). */
  httpStatus?: number;
};

/** How one request to the provider ended, as `/metrics` counts it (`provider_requests_total`). */
export type ProviderOutcome = 'ok' | 'unavailable' | 'timeout' | 'busy' | 'not_found' | 'unreadable';

/** What a provider reports of its own work to the metrics: each request, each answer that drifted, each pass. */
export type ProviderObserver = {
  request(operation: string, outcome: ProviderOutcome): void;
  drift(operation: string): void;
  reconciliation(result: 'ok' | 'failed'): void;
};

/**
 * What `/readyz` and the banner say of the provider: its name and, for a real one, the last periodic check
 * (`unknown` before the first one; `unreachable`: nothing answered in time; `unauthorized`: the key was refused;
 * `failing`: it answered with an error).
 */
export type ProviderHealth = {
  name: 'simulator' | 'elevenlabs';
  state: 'ok' | 'unknown' | 'unreachable' | 'unauthorized' | 'failing';
  checked_at: string | null;
  /** Since when the state is what it is (its first check that found it so). */
  since: string | null;
  detail: string | null;
};

/** Where `/readyz` reads the provider's health, and its warning while it is anything but well. */
export type ProviderStatus = { current(): ProviderHealth; warning(): string | null };

export type ProviderResult<T> = { ok: true; value: T } | { ok: false; error: ProviderError };

export type PlaceCallRequest = {
  /**
   * Our call id. The provider deduplicates on it: placing the same callId twice returns the first
   * placement, so a retry after a timeout can never ring a person twice.
   */
  callId: string;
  /** The assistant (the provider's agent) that speaks on the call. */
  assistantId: string;
  language: string;
  from: string;
  to: string;
  /** Dynamic variables for the assistant's script. */
  variables: Record<string, string | number | boolean>;
  /** The provider hangs up at this length (`max_duration`); it bounds the cost of any call. */
  maxDurationSeconds: number;
  /** The assistant's upstream agent and the `from` number's id there (ElevenLabs); null when not linked. */
  agent?: AgentLink | null;
  /** A test-mode call (a `svc_test_` key's): the simulator plays the test numbers' outcomes (simulator-plan.ts). */
  testMode?: boolean;
};

export type AgentLink = { agentId: string; phoneNumberId: string; telephony: 'twilio' | 'sip_trunk' };

export type PlacedCall = {
  providerCallId: string;
  /** The telephony carrier's own id of the call (Twilio call SID, SIP call id), when the provider reports it. */
  carrierCallId?: string | null;
};

/** One turn as the provider stores it: offsets from the start of the conversation. */
export type ProviderTurn = { role: 'agent' | 'user'; message: string; offsetSeconds: number };

export type ProviderInsight = { name: string; result: unknown };

/** Available once the conversation is over (analysis included). */
export type ConversationDetails = {
  durationSeconds: number;
  summary: string;
  insights: ProviderInsight[];
  hasTranscript: boolean;
  recordingAvailable: boolean;
  /** What the provider charged, as a 4-place decimal in USD, when it reports it; else our rate applies. */
  costUsd?: string | null;
};

export type Conversation = {
  conversationId: string;
  /** Null while the conversation is still going on. */
  details: ConversationDetails | null;
  transcript: { state: 'settling'; retryAfterSeconds: number } | { state: 'ready'; turns: ProviderTurn[] };
};

/** The provider's own events, in the order it emits them for one call. */
export type ProviderEvent =
  | {
      type: 'call.inbound';
      providerCallId: string;
      assistantId: string;
      from: string;
      to: string;
      callerName: string | null;
      at: Date;
      /** A test-mode inbound call (POST /test/inbound-calls): the test twin it is filed under. */
      testCustomerId?: string;
    }
  | ({ type: 'call.ringing'; at: Date } & CallNamed)
  | ({ type: 'call.answered'; conversationId: string; at: Date } & CallNamed)
  | ({
      type: 'call.ended';
      status: ProviderEndStatus;
      disconnectReason: string;
      at: Date;
    } & CallNamed);

/** How an event names its call: by the provider's handle, or by our id when the provider reports it. */
type CallNamed = {
  providerCallId: string;
  callId: string | null;
  /**
   * Set when `callId` is only the provider's word, one whoever starts a conversation can choose (ElevenLabs: the
   * conversation's `user_id`): the assistant linked to the agent that had the conversation, null when none is. The
   * event then changes a call of that assistant's customer only, or one already known by `providerCallId`.
   */
  claimedBy?: { assistantId: string | null };
};

export interface VoiceProvider {
  placeCall(request: PlaceCallRequest): Promise<ProviderResult<PlacedCall>>;
  /** Details, transcript, or "still settling" for a conversation. */
  getConversation(conversationId: string): Promise<ProviderResult<Conversation>>;
  /**
   * Everything the provider knows of one call, as the events it would have sent, in order (duplicates and events
   * already applied are harmless): how a restart, a lost webhook or a missed tick catches up. `not_found` when the
   * provider has no such call.
   */
  callEvents(providerCallId: string): Promise<ProviderResult<ProviderEvent[]>>;
}
