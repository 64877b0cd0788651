import type { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import type { ProviderResult, VoiceProvider } from '../provider/index.ts';
import { fail, ok } from '../provider/index.ts';
import { conversationOf, eventsOf } from './events.ts';
import { type ConversationFacts, conversationFacts } from './facts.ts';

/** Pages of the conversation list read by one reconciliation pass, at most (100 conversations each). */
const MAX_LIST_PAGES = 20;

export type ElevenLabsSettings = {
  apiKey: string;
  baseUrl: string;
  /** Our limit on every request; the SDK never retries on its own (maxRetries 0): we decide what a retry means. */
  timeoutMs: number;
  /** The assistant linked to an agent: inbound calls need it to exist on our side. */
  assistantForAgent: (agentId: string) => Promise<string | null>;
};

/**
 * ElevenLabs Agents behind our provider boundary, through the official SDK. Our call id travels as
 * `conversation_initiation_client_data.user_id`: ElevenLabs has no idempotency key, so before placing we look for
 * a conversation already started for this call id and return it (a retry of a failed placement never rings twice).
 */
export function createElevenLabsProvider(settings: ElevenLabsSettings) {
  // The SDK takes about 2 s to load (hundreds of modules): it is loaded by the first request to ElevenLabs, so a
  // process that never talks to them (the simulator, every test, the CLI) does not pay for it at start.
  let client: Promise<ConversationalAi> | null = null;
  const conversationalAi = () =>
    (client ??= import('@elevenlabs/elevenlabs-js').then(
      ({ ElevenLabsClient }) =>
        new ElevenLabsClient({
          apiKey: settings.apiKey,
          baseUrl: settings.baseUrl,
          timeoutInSeconds: settings.timeoutMs / 1000,
          maxRetries: 0,
        }).conversationalAi,
    ));

  async function attempt<T>(
    what: string,
    run: (ai: ConversationalAi) => Promise<T>,
  ): Promise<ProviderResult<T>> {
    try {
      return ok(await run(await conversationalAi()));
    } catch (error) {
      // Loaded with the SDK it inspects, which is here by now.
      const { providerErrorOf } = await import('./errors.ts');
      return fail(providerErrorOf(error, what, settings.timeoutMs));
    }
  }

  /** The conversation started for our call id (its `user_id`), if any. */
  async function findPlacement(agentId: string, callId: string): Promise<ProviderResult<string | null>> {
    const listed = await attempt('earlier placements', (ai) =>
      ai.conversations.list({ agentId, userId: callId, pageSize: 1 }),
    );
    return listed.ok ? ok(listed.value.conversations[0]?.conversationId ?? null) : listed;
  }

  async function conversation(id: string): Promise<ProviderResult<ConversationFacts>> {
    const got = await attempt(`conversation ${id}`, (ai) => ai.conversations.get(id));
    if (!got.ok) return got;
    const facts = conversationFacts(got.value);
    return facts
      ? ok(facts)
      : fail({
          code: 'unavailable',
          retryable: false,
          detail: `ElevenLabs sent conversation ${id} in a shape we cannot read.`,
        });
  }

  const provider: VoiceProvider = {
    async placeCall(request) {
      const agent = request.agent;
      if (!agent) {
        return fail({
          code: 'unavailable',
          retryable: false,
          detail: 'The assistant is not linked to an agent.',
        });
      }
      const earlier = await findPlacement(agent.agentId, request.callId);
      if (!earlier.ok) return earlier;
      if (earlier.value) return ok({ providerCallId: earlier.value });
      const body = {
        agentId: agent.agentId,
        agentPhoneNumberId: agent.phoneNumberId,
        toNumber: request.to,
        conversationInitiationClientData: { userId: request.callId, dynamicVariables: request.variables },
      };
      const placed = await attempt('the placement', async (ai) => {
        if (agent.telephony === 'sip_trunk') {
          const r = await ai.sipTrunk.outboundCall(body);
          return {
            success: r.success,
            message: r.message,
            conversationId: r.conversationId,
            sid: r.sipCallId,
          };
        }
        const r = await ai.twilio.outboundCall(body);
        return { success: r.success, message: r.message, conversationId: r.conversationId, sid: r.callSid };
      });
      if (!placed.ok) return placed;
      const { success, message, conversationId, sid } = placed.value;
      if (!success || !conversationId) {
        return fail({
          code: 'unavailable',
          retryable: true,
          detail: `The voice provider refused the call: ${message}`,
        });
      }
      return ok({ providerCallId: conversationId, carrierCallId: sid ?? null });
    },

    async getConversation(conversationId) {
      const got = await conversation(conversationId);
      return got.ok ? ok(conversationOf(got.value)) : got;
    },

    async callEvents(providerCallId) {
      const got = await conversation(providerCallId);
      if (!got.ok) return got;
      return ok(eventsOf(got.value, await settings.assistantForAgent(got.value.agentId)));
    },
  };

  return {
    ...provider,
    findPlacement,
    /** Conversation ids of `agentId` started after `afterUnix` (seconds), every cursor page (reconciliation). */
    async conversationsSince(agentId: string, afterUnix: number): Promise<ProviderResult<string[]>> {
      const ids: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const listed = await attempt('conversations', (ai) =>
          ai.conversations.list({
            agentId,
            callStartAfterUnix: afterUnix,
            pageSize: 100,
            ...(cursor ? { cursor } : {}),
          }),
        );
        if (!listed.ok) return listed;
        ids.push(...listed.value.conversations.map((c) => c.conversationId));
        cursor = listed.value.nextCursor ?? undefined;
        if (!listed.value.hasMore || !cursor) break;
      }
      return ok(ids);
    },
  };
}

export type ElevenLabsProvider = ReturnType<typeof createElevenLabsProvider>;

type ConversationalAi = ElevenLabsClient['conversationalAi'];
