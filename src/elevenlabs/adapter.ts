import type { ProviderResult, VoiceProvider } from '../provider/index.ts';
import { fail, ok } from '../provider/index.ts';
import {
  agentAnswer,
  agentsPage,
  conversationsPage,
  phoneNumberAnswer,
  placementAnswer,
  reading,
} from './answers.ts';
import { conversationOf, eventsOf } from './events.ts';
import { type ConversationFacts, readConversation } from './facts.ts';
import { createRequests, type RequestSettings } from './requests.ts';

/** Pages of the conversation list read by one reconciliation pass, at most (100 conversations each). */
const MAX_LIST_PAGES = 20;

export type ElevenLabsSettings = RequestSettings & {
  /** The assistant linked to an agent: inbound calls need it to exist on our side. */
  assistantForAgent: (agentId: string) => Promise<string | null>;
};

/**
 * ElevenLabs Agents behind our provider boundary, through the official SDK (requests.ts). Our call id travels as
 * `conversation_initiation_client_data.user_id`: ElevenLabs has no idempotency key, so before placing we look for
 * a conversation already started for this call id and return it (a retry of a failed placement never rings twice).
 */
export function createElevenLabsProvider(settings: ElevenLabsSettings) {
  const { ask } = createRequests(settings);

  /** The conversation started for our call id (its `user_id`), if any. */
  async function findPlacement(agentId: string, callId: string): Promise<ProviderResult<string | null>> {
    const listed = await ask(
      'conversations.list',
      `earlier placements of call ${callId}`,
      reading(conversationsPage),
      (ai) => ai.conversations.list({ agentId, userId: callId, pageSize: 1 }),
    );
    return listed.ok ? ok(listed.value.conversations[0]?.conversationId ?? null) : listed;
  }

  const conversation = (id: string): Promise<ProviderResult<ConversationFacts>> =>
    ask('conversations.get', `conversation ${id}`, readConversation, (ai) => ai.conversations.get(id));

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
      const sip = agent.telephony === 'sip_trunk';
      const placed = await ask(
        sip ? 'sip_trunk.outbound_call' : 'twilio.outbound_call',
        `the placement of call ${request.callId}`,
        reading(placementAnswer),
        (ai) => (sip ? ai.sipTrunk.outboundCall(body) : ai.twilio.outboundCall(body)),
        { unreadableMeans: 'timeout' },
      );
      if (!placed.ok) return placed;
      const { success, message, conversationId, callSid, sipCallId } = placed.value;
      if (!success || !conversationId) {
        return fail({
          code: 'unavailable',
          retryable: true,
          detail: `The voice provider refused the call: ${message ?? 'no reason given'}`,
        });
      }
      return ok({ providerCallId: conversationId, carrierCallId: callSid ?? sipCallId ?? null });
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
        const listed = await ask(
          'conversations.list',
          `conversations of agent ${agentId}`,
          reading(conversationsPage),
          (ai) =>
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
        // Without `has_more` (a drifted answer), a next cursor is enough to go on.
        if (listed.value.hasMore === false || !cursor) break;
      }
      return ok(ids);
    },
    /** `GET /v1/convai/agents/{id}`: the agent, as the link checks need it. */
    agent: (agentId: string) =>
      ask('agents.get', `agent ${agentId}`, reading(agentAnswer), (ai) => ai.agents.get(agentId)),
    /** `GET /v1/convai/phone-numbers/{id}`: the number, its telephony and the agent it is assigned to. */
    phoneNumber: (phoneNumberId: string) =>
      ask('phone_numbers.get', `phone number ${phoneNumberId}`, reading(phoneNumberAnswer), (ai) =>
        ai.phoneNumbers.get(phoneNumberId),
      ),
    /** One agent of the list: the cheapest request that proves the key works and ElevenLabs answers (health). */
    probe: () =>
      ask('agents.list', 'the list of agents', reading(agentsPage), (ai) => ai.agents.list({ pageSize: 1 })),
  };
}

export type ElevenLabsProvider = ReturnType<typeof createElevenLabsProvider>;
