import { assistantNumbers } from '../assistants/index.ts';
import type { Clock } from '../clock.ts';
import type { AgentPhoneNumbers, AgentTelephony, Database } from '../db/index.ts';
import { type Issue, invalidInput, notFound } from '../errors/index.ts';
import * as links from './agent-links.repository.ts';

/** Which ElevenLabs agent answers for an assistant, and as which of the provider's numbers (CLI and dashboard). */
export function createAgentLinksService(deps: { db: Database; clock: Clock }) {
  const { db, clock } = deps;
  return {
    /**
     * Links an assistant to its ElevenLabs agent (`agent_…`) and each of its numbers to the provider's id of it
     * (`phnum_…`, Twilio or SIP trunk). Every number given must be one of the assistant's.
     */
    async linkAgent(input: {
      assistantId: string;
      agentId: string;
      numbers: { e164: string; phoneNumberId: string; telephony: AgentTelephony }[];
    }): Promise<{ assistantId: string; agentId: string; phoneNumbers: AgentPhoneNumbers }> {
      const numbers = await assistantNumbers(db, input.assistantId);
      if (!numbers) throw notFound('Assistant');
      const issues: Issue[] = [
        ...(input.agentId.trim() ? [] : [{ path: ['agent_id'], message: 'Must not be empty.' }]),
        ...input.numbers.flatMap((n, i) =>
          numbers.includes(n.e164) && n.phoneNumberId.trim()
            ? []
            : [
                {
                  path: ['phone_number_id', String(i)],
                  message: `${n.e164} is not one of the assistant's numbers.`,
                },
              ],
        ),
      ];
      if (issues.length > 0) throw invalidInput(issues);
      const phoneNumbers: AgentPhoneNumbers = Object.fromEntries(
        input.numbers.map((n) => [n.e164, { id: n.phoneNumberId.trim(), telephony: n.telephony }]),
      );
      await links.upsertAgentLink(db, {
        assistantId: input.assistantId,
        agentId: input.agentId.trim(),
        phoneNumbers,
        now: clock.now(),
      });
      return { assistantId: input.assistantId, agentId: input.agentId.trim(), phoneNumbers };
    },

    /** The agent links of these assistants, by assistant id (the dashboard shows them). */
    async agentLinks(
      assistantIds: string[],
    ): Promise<Map<string, { agentId: string; phoneNumbers: AgentPhoneNumbers }>> {
      const rows = await links.findAgentLinks(db, assistantIds);
      return new Map(
        rows.map((r) => [r.assistant_id, { agentId: r.agent_id, phoneNumbers: r.phone_numbers }]),
      );
    },
  };
}

export type AgentLinksService = ReturnType<typeof createAgentLinksService>;
