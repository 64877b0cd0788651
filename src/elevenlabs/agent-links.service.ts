import { assistantNumbers } from '../assistants/index.ts';
import type { Clock } from '../clock.ts';
import type { AgentPhoneNumbers, AgentTelephony, Database } from '../db/index.ts';
import { AppError, type Issue, invalidInput, notFound } from '../errors/index.ts';
import * as links from './agent-links.repository.ts';
import { type LinkLookups, placeholderProblems, providerProblems } from './link-checks.ts';

/**
 * Which ElevenLabs agent answers for an assistant, and as which of the provider's numbers (CLI and dashboard).
 * `lookups` (PROVIDER=elevenlabs) checks each link with ElevenLabs before it is kept; without it (the simulator),
 * links can be made ahead and are checked by `provider check` once ElevenLabs runs.
 */
export function createAgentLinksService(deps: { db: Database; clock: Clock; lookups: LinkLookups | null }) {
  const { db, clock, lookups } = deps;
  return {
    /**
     * Links an assistant to its ElevenLabs agent (`agent_…`) and each of its numbers to the provider's id of it
     * (`phnum_…`, Twilio or SIP trunk). Every number given must be one of the assistant's; placeholders are refused,
     * and with ElevenLabs running, anything it says otherwise (no such agent or number, a number of another agent,
     * of the other kind, or another number).
     */
    async linkAgent(input: {
      assistantId: string;
      agentId: string;
      numbers: { e164: string; phoneNumberId: string; telephony: AgentTelephony }[];
    }): Promise<{ assistantId: string; agentId: string; phoneNumbers: AgentPhoneNumbers; checked: boolean }> {
      const numbers = await assistantNumbers(db, input.assistantId);
      if (!numbers) throw notFound('Assistant');
      const given = {
        agentId: input.agentId.trim(),
        numbers: input.numbers.map((n) => ({ ...n, phoneNumberId: n.phoneNumberId.trim() })),
      };
      const issues: Issue[] = [
        ...(given.agentId ? [] : [{ path: ['agent_id'], message: 'Must not be empty.' }]),
        ...given.numbers.flatMap((n, i) =>
          numbers.includes(n.e164) && n.phoneNumberId
            ? []
            : [
                {
                  path: ['phone_number_id', String(i)],
                  message: `${n.e164} is not one of the assistant's numbers.`,
                },
              ],
        ),
        ...placeholderProblems(given).map((p) => ({ path: p.field, message: p.message })),
      ];
      if (issues.length > 0) throw invalidInput(issues);
      if (lookups) {
        const problems = await providerProblems(lookups, given);
        const unchecked = problems.find((p) => p.unchecked);
        if (unchecked) throw new AppError('carrier.unavailable', `${unchecked.message} Nothing was linked.`);
        if (problems.length > 0)
          throw invalidInput(problems.map((p) => ({ path: p.field, message: p.message })));
      }
      const phoneNumbers: AgentPhoneNumbers = Object.fromEntries(
        given.numbers.map((n) => [n.e164, { id: n.phoneNumberId, telephony: n.telephony }]),
      );
      const { assistantId } = input;
      await links.upsertAgentLink(db, {
        assistantId,
        agentId: given.agentId,
        phoneNumbers,
        now: clock.now(),
      });
      return { assistantId, agentId: given.agentId, phoneNumbers, checked: lookups !== null };
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
