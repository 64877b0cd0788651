import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake of ElevenLabs' Agents API for contract tests: real HTTP on loopback, answering the requests the SDK
 * makes with the wire shapes of its serializers (serialization/types/*.d.ts of @elevenlabs/elevenlabs-js).
 * Tests move conversations on (`progress`) and choose faults (`fault`).
 */
export type FakeOutcome = 'answered' | 'busy' | 'no_answer' | 'failed';
/**
 * `hang`: an outbound placement takes effect but is never answered; `hang_unplaced`: neither; `placed_then_500`:
 * it takes effect but the answer is a 500; `slow`: every answer waits `slowMs` first.
 */
export type FakeFault =
  | 'none'
  | 'busy_429'
  | 'error_500'
  | 'hang'
  | 'hang_unplaced'
  | 'placed_then_500'
  | 'slow';
/** The answers a test can reshape (drift): each is sent as the function returns it. */
export type FakeAnswer = 'conversation' | 'conversations' | 'placement' | 'agent' | 'agents' | 'phone_number';
export type FakeNumber = {
  phone_number_id: string;
  phone_number: string;
  provider: 'twilio' | 'sip_trunk';
  agent_id: string | null;
};
type Status = 'initiated' | 'in-progress' | 'processing' | 'done' | 'failed';

export type FakeConversation = {
  conversation_id: string;
  agent_id: string;
  status: Status;
  user_id: string | null;
  direction: 'inbound' | 'outbound';
  phone_number_id: string;
  agent_number: string;
  external_number: string;
  call_sid: string;
  call_result: FakeOutcome | null;
  start: number;
  accepted: number | null;
  duration: number;
  dynamic_variables: Record<string, unknown>;
};

const hex = (n: number) => randomBytes(n).toString('hex');

export function wireConversation(c: FakeConversation): Record<string, unknown> {
  const done = c.status === 'done';
  return {
    agent_id: c.agent_id,
    conversation_id: c.conversation_id,
    status: c.status,
    has_audio: done,
    has_user_audio: done,
    has_response_audio: done,
    has_auxiliary_audio: false,
    metadata: {
      start_time_unix_secs: c.start,
      accepted_time_unix_secs: c.accepted,
      call_duration_secs: c.duration,
      cost_fiat: done ? 0.0712 : null,
      termination_reason:
        c.status === 'done' || c.status === 'processing' ? 'Call ended by remote party' : null,
      phone_call: {
        type: 'twilio',
        direction: c.direction,
        phone_number_id: c.phone_number_id,
        agent_number: c.agent_number,
        external_number: c.external_number,
        call_result: c.call_result,
        stream_sid: `MZ${c.call_sid.slice(2)}`,
        call_sid: c.call_sid,
      },
    },
    analysis: done
      ? {
          call_successful: 'success',
          transcript_summary: 'The caller confirmed the appointment.',
          data_collection_results: {
            appointment_confirmed: {
              data_collection_id: 'appointment_confirmed',
              value: true,
              rationale: 'Said yes.',
            },
          },
          evaluation_criteria_results: {
            polite: { criteria_id: 'polite', result: 'success', rationale: 'Was polite.' },
          },
        }
      : null,
    conversation_initiation_client_data: { user_id: c.user_id, dynamic_variables: c.dynamic_variables },
    transcript: done
      ? [
          { role: 'agent', message: 'Hello, this is a reminder of your appointment.', time_in_call_secs: 0 },
          { role: 'user', message: 'Yes, I will be there.', time_in_call_secs: 4 },
        ]
      : [],
  };
}

/** `GET /v1/convai/agents/{id}` as the SDK's serializer expects it (serialization/types/GetAgentResponseModel.d.ts). */
export const wireAgent = (agentId: string, numbers: FakeNumber[]): Record<string, unknown> => ({
  agent_id: agentId,
  name: `Agent ${agentId}`,
  conversation_config: {},
  metadata: { created_at_unix_secs: 1_767_225_600, updated_at_unix_secs: 1_767_225_600 },
  platform_settings: null,
  phone_numbers: numbers.map((n) => wireNumberItem(n)),
  tags: [],
  version_id: null,
});

/**
 * `GET /v1/convai/phone-numbers/{id}` (PhoneNumbersGetResponse: GetPhoneNumberTwilioResponseModel or
 * GetPhoneNumberSipTrunkResponseModel, told apart by `provider`).
 */
export function wireNumber(n: FakeNumber): Record<string, unknown> {
  return {
    ...wireNumberItem(n),
    assigned_agent: n.agent_id ? { agent_id: n.agent_id, agent_name: `Agent ${n.agent_id}` } : null,
  };
}

function wireNumberItem(n: FakeNumber): Record<string, unknown> {
  return {
    phone_number: n.phone_number,
    label: `Line ${n.phone_number}`,
    supports_inbound: true,
    supports_outbound: true,
    phone_number_id: n.phone_number_id,
    provider: n.provider,
    ...(n.provider === 'sip_trunk' ? { livekit_stack: 'standard' } : {}),
  };
}

export async function startFakeElevenLabs(options: { apiKey: string }) {
  const conversations = new Map<string, FakeConversation>();
  const numbers = new Map<string, FakeNumber>();
  const agents = new Set<string>();
  const reshapes = new Map<FakeAnswer, (body: Record<string, unknown>) => unknown>();
  let slowMs = 0;
  const requests: { method: string; path: string; body: unknown }[] = [];
  let fault: FakeFault = 'none';
  let nowUnix = () => Math.floor(Date.now() / 1000);
  const hanging: http.ServerResponse[] = [];

  const send = (
    res: http.ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  /** A 200 answer of one of the reshapeable kinds, as the test reshaped it. */
  const answer = (res: http.ServerResponse, kind: FakeAnswer, body: Record<string, unknown>) =>
    send(res, 200, reshapes.get(kind)?.(structuredClone(body)) ?? body);

  function place(body: Record<string, unknown>): FakeConversation {
    const data = (body.conversation_initiation_client_data ?? {}) as Record<string, unknown>;
    const c: FakeConversation = {
      conversation_id: `conv_${hex(12)}`,
      agent_id: String(body.agent_id),
      status: 'initiated',
      user_id: typeof data.user_id === 'string' ? data.user_id : null,
      direction: 'outbound',
      phone_number_id: String(body.agent_phone_number_id),
      agent_number: numbers.get(String(body.agent_phone_number_id))?.phone_number ?? '+14155550102',
      external_number: String(body.to_number),
      call_sid: `CA${hex(16)}`,
      call_result: null,
      start: nowUnix(),
      accepted: null,
      duration: 0,
      dynamic_variables: (data.dynamic_variables ?? {}) as Record<string, unknown>,
    };
    conversations.set(c.conversation_id, c);
    return c;
  }

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
    requests.push({ method: req.method ?? '', path: url.pathname + url.search, body });
    if (req.headers['xi-api-key'] !== options.apiKey) {
      send(res, 401, { detail: { status: 'invalid_api_key', message: 'Invalid API key' } });
      return;
    }
    if (fault === 'busy_429') {
      send(
        res,
        429,
        { detail: { status: 'too_many_concurrent_requests', message: 'Too many' } },
        { 'retry-after': '7' },
      );
      return;
    }
    if (fault === 'error_500') {
      send(res, 500, { detail: 'Internal Server Error' });
      return;
    }
    if (fault === 'slow') await new Promise((resolve) => setTimeout(resolve, slowMs));
    const outbound = /^\/v1\/convai\/(twilio|sip-trunk)\/outbound-call$/.exec(url.pathname);
    if (req.method === 'POST' && outbound && body) {
      if (fault === 'hang_unplaced') {
        hanging.push(res);
        return;
      }
      const c = place(body);
      // The call is placed, but the answer never comes: what a timeout leaves us not knowing.
      if (fault === 'hang') {
        hanging.push(res);
        return;
      }
      if (fault === 'placed_then_500') {
        send(res, 500, { detail: 'Internal Server Error' });
        return;
      }
      const twilio = outbound[1] === 'twilio';
      answer(res, 'placement', {
        success: true,
        message: 'Success',
        conversation_id: c.conversation_id,
        ...(twilio ? { callSid: c.call_sid } : { sip_call_id: c.call_sid }),
      });
      return;
    }
    const one = /^\/v1\/convai\/conversations\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && one) {
      const c = conversations.get(decodeURIComponent(one[1] ?? ''));
      if (!c) send(res, 404, { detail: { status: 'conversation_not_found', message: 'Not found' } });
      else answer(res, 'conversation', wireConversation(c));
      return;
    }
    if (req.method === 'GET' && url.pathname === '/v1/convai/conversations') {
      const q = url.searchParams;
      const after = Number(q.get('call_start_after_unix') ?? '0');
      const size = Number(q.get('page_size') ?? '30');
      const offset = Number(q.get('cursor') ?? '0');
      const all = [...conversations.values()]
        .filter((c) => !q.get('agent_id') || c.agent_id === q.get('agent_id'))
        .filter((c) => !q.get('user_id') || c.user_id === q.get('user_id'))
        .filter((c) => c.start > after)
        .sort((a, b) => b.start - a.start);
      const page = all.slice(offset, offset + size);
      const more = offset + size < all.length;
      answer(res, 'conversations', {
        conversations: page.map((c) => ({
          agent_id: c.agent_id,
          conversation_id: c.conversation_id,
          start_time_unix_secs: c.start,
          call_duration_secs: c.duration,
          message_count: c.status === 'done' ? 2 : 0,
          status: c.status,
          call_successful: c.status === 'done' ? 'success' : 'unknown',
          direction: c.direction,
        })),
        next_cursor: more ? String(offset + size) : null,
        has_more: more,
      });
      return;
    }
    const agent = /^\/v1\/convai\/agents\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && agent) {
      const id = decodeURIComponent(agent[1] ?? '');
      if (!agents.has(id)) send(res, 404, { detail: { status: 'agent_not_found', message: 'Not found' } });
      else
        answer(
          res,
          'agent',
          wireAgent(
            id,
            [...numbers.values()].filter((n) => n.agent_id === id),
          ),
        );
      return;
    }
    if (req.method === 'GET' && url.pathname === '/v1/convai/agents') {
      const first = [...agents].slice(0, Number(url.searchParams.get('page_size') ?? '30'));
      answer(res, 'agents', {
        agents: first.map((id) => ({
          agent_id: id,
          name: `Agent ${id}`,
          voice_id: '21m00Tcm4TlvDq8ikWAM',
          tags: [],
          created_at_unix_secs: 1_767_225_600,
          access_info: {
            is_creator: true,
            creator_name: 'Ops',
            creator_email: 'ops@example.com',
            role: 'admin',
          },
        })),
        next_cursor: null,
        has_more: agents.size > first.length,
      });
      return;
    }
    const number = /^\/v1\/convai\/phone-numbers\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && number) {
      const n = numbers.get(decodeURIComponent(number[1] ?? ''));
      if (!n) send(res, 404, { detail: { status: 'phone_number_not_found', message: 'Not found' } });
      else answer(res, 'phone_number', wireNumber(n));
      return;
    }
    send(res, 404, { detail: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    conversations,
    /** An agent of the workspace. */
    addAgent(agentId: string): void {
      agents.add(agentId);
    },
    /**
     * A phone number (its `phnum_…` id), the E.164 number it stands for, its telephony and the agent it is assigned
     * to (none unless said).
     */
    addNumber(
      phoneNumberId: string,
      e164: string,
      o: { agentId?: string | null; provider?: 'twilio' | 'sip_trunk' } = {},
    ): void {
      numbers.set(phoneNumberId, {
        phone_number_id: phoneNumberId,
        phone_number: e164,
        provider: o.provider ?? 'twilio',
        agent_id: o.agentId ?? null,
      });
    },
    /** Every later answer of this kind passes through `change` (a drifted schema); null: as built again. */
    reshape(kind: FakeAnswer, change: ((body: Record<string, unknown>) => unknown) | null): void {
      if (change) reshapes.set(kind, change);
      else reshapes.delete(kind);
    },
    /** With the `slow` fault, how long each answer waits. */
    slowBy(ms: number): void {
      slowMs = ms;
    },
    useClock(now: () => Date): void {
      nowUnix = () => Math.floor(now().getTime() / 1000);
    },
    fault(next: FakeFault): void {
      fault = next;
      if (next === 'none') for (const res of hanging.splice(0)) res.destroy();
    },
    /** Moves a conversation on: answered and talking, then processing (settling), then done; or an unanswered end. */
    progress(
      id: string,
      step: 'answer' | 'hang_up' | 'analysed' | Exclude<FakeOutcome, 'answered'>,
    ): FakeConversation {
      const c = conversations.get(id);
      if (!c) throw new Error(`no conversation ${id}`);
      const now = nowUnix();
      if (step === 'answer')
        Object.assign(c, { status: 'in-progress', accepted: now, call_result: 'answered' });
      else if (step === 'hang_up')
        Object.assign(c, { status: 'processing', duration: now - (c.accepted ?? c.start) });
      else if (step === 'analysed') c.status = 'done';
      else Object.assign(c, { status: 'failed', call_result: step });
      return c;
    },
    /** Someone calls an agent's number. */
    inbound(agentId: string, phoneNumberId: string, from: string): FakeConversation {
      const c = place({ agent_id: agentId, agent_phone_number_id: phoneNumberId, to_number: from });
      c.direction = 'inbound';
      return c;
    },
    close: async () => {
      for (const res of hanging.splice(0)) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type FakeElevenLabs = Awaited<ReturnType<typeof startFakeElevenLabs>>;

/** The body of a `post_call_transcription` webhook for a conversation, as ElevenLabs sends it. */
export const transcriptionWebhook = (c: FakeConversation, at: Date) => ({
  type: 'post_call_transcription',
  event_timestamp: Math.floor(at.getTime() / 1000),
  data: wireConversation(c),
});

/** The body of a `call_initiation_failure` webhook. */
export const initiationFailureWebhook = (
  c: FakeConversation,
  reason: 'busy' | 'no-answer' | 'unknown',
  at: Date,
) => ({
  type: 'call_initiation_failure',
  event_timestamp: Math.floor(at.getTime() / 1000),
  data: {
    agent_id: c.agent_id,
    conversation_id: c.conversation_id,
    failure_reason: reason,
    metadata: { type: 'twilio', body: { CallSid: c.call_sid, CallStatus: reason } },
  },
});

/**
 * One transcript turn with every field of the SDK's transcript model filled in as ElevenLabs fills them
 * (serialization/types/ConversationHistoryTranscriptResponseModel.d.ts: agent metadata, turn metrics, LLM usage,
 * the original message, …): what sizes a long call's `post_call_transcription` body, about 1.5 KB a turn.
 */
export function fullTranscriptTurn(i: number): Record<string, unknown> {
  const message = 'I would like to move my appointment to Thursday afternoon if that is possible, thanks.';
  return {
    role: i % 2 ? 'user' : 'agent',
    agent_metadata: {
      agent_id: 'agent_01jz8x5y6z7a8b9c0d1e2f3g4h',
      branch_id: null,
      workflow_node_id: 'node_01jz8x5y6z7a8b9c0d1e2f3g4h',
      version_id: 'agtvrsn_01jz8x5y6z7a8b9c0d1e2f3g4h',
    },
    message,
    multivoice_message: null,
    tool_calls: [],
    tool_results: [],
    feedback: null,
    llm_override: null,
    producing_llm: 'gemini-2.5-flash',
    time_in_call_secs: i * 5,
    conversation_turn_metrics: {
      metrics: {
        convai_llm_service_ttfb: { elapsed_time: 0.412345 },
        convai_llm_service_ttf_sentence: { elapsed_time: 0.612345 },
        convai_tts_service_ttfb: { elapsed_time: 0.212345 },
        convai_asr_trailing_service_latency: { elapsed_time: 0.112345 },
      },
      convai_asr_provider: 'elevenlabs',
      convai_tts_model: 'eleven_flash_v2_5',
      convai_tts_cascade: null,
      voice_id: '21m00Tcm4TlvDq8ikWAM',
    },
    rag_retrieval_info: null,
    llm_usage: {
      model_usage: {
        'gemini-2.5-flash': {
          input: { tokens: 12345, price: 0.00123456 },
          input_cache_read: { tokens: 11000, price: 0.000275 },
          input_cache_write: { tokens: 0, price: 0 },
          output_total: { tokens: 45, price: 0.0000189 },
        },
      },
    },
    interrupted: false,
    ignored_as_backchannel: false,
    platform_event: null,
    original_message: message,
    reasoning: null,
    source_medium: 'audio',
    source_event_id: i,
    used_static_kb_document_ids: [],
    user_identifier: null,
    id: `turn_${i}_01jz8x5y6z7a8b9c`,
    triggered_guardrails: [],
    file_input: null,
    file_inputs: [],
    contextual_update_info: null,
    reasoned: false,
  };
}
