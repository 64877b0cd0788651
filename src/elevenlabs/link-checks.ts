import type { AgentTelephony } from '../db/index.ts';
import type { ProviderResult } from '../provider/index.ts';

/** A link as given to `assistants link`, or as stored. */
export type LinkToCheck = {
  agentId: string;
  numbers: { e164: string; phoneNumberId: string; telephony: AgentTelephony }[];
};

/** What of ElevenLabs a check reads (the adapter's `agent` and `phoneNumber`). */
export type LinkLookups = {
  agent(agentId: string): Promise<ProviderResult<{ agentId: string; name?: string | null | undefined }>>;
  phoneNumber(phoneNumberId: string): Promise<
    ProviderResult<{
      phoneNumberId: string;
      phoneNumber: string;
      provider: string;
      assignedAgent?: { agentId: string } | null | undefined;
    }>
  >;
};

/**
 * One thing wrong with a link, as a sentence, and the field it is about (`agent_id`, `phone_number_id.<i>`);
 * `unchecked` when ElevenLabs could not be asked (unreachable, key refused), not a mismatch.
 */
export type LinkProblem = { field: string[]; message: string; unchecked?: true };

/**
 * The docs' and the CLI help's placeholders (`agent_…`, `phnum_...`, `<agentId>`) and anything with a space: ids of
 * ElevenLabs are one word of letters, digits, `_` and `-`.
 */
const PLACEHOLDER = /…|\.\.\.|[<>\s]|^(agent|phnum)_?$/;

/** Placeholders, before anything is asked of ElevenLabs (whichever provider runs). */
export function placeholderProblems(link: LinkToCheck): LinkProblem[] {
  const problems: LinkProblem[] = [];
  if (PLACEHOLDER.test(link.agentId)) {
    problems.push({
      field: ['agent_id'],
      message: `"${link.agentId}" is a placeholder, not an agent id: copy the agent's id from its page in ElevenLabs (agent_ followed by letters and digits).`,
    });
  }
  link.numbers.forEach((n, i) => {
    if (PLACEHOLDER.test(n.phoneNumberId)) {
      problems.push({
        field: ['phone_number_id', String(i)],
        message: `"${n.phoneNumberId}" (for ${n.e164}) is a placeholder, not a phone number id: copy the number's id from ElevenLabs' Phone Numbers page (phnum_ followed by letters and digits).`,
      });
    }
  });
  return problems;
}

/**
 * Asks ElevenLabs that the agent exists and that each number exists, is the one given, is assigned to that agent and
 * is of the kind given (Twilio or SIP trunk). Each problem is a sentence naming what is wrong; a lookup that failed
 * for another reason (unreachable, refused key) says it could not check.
 */
export async function providerProblems(lookups: LinkLookups, link: LinkToCheck): Promise<LinkProblem[]> {
  const problems: LinkProblem[] = [];
  const agent = await lookups.agent(link.agentId);
  if (!agent.ok) {
    problems.push({
      field: ['agent_id'],
      message:
        agent.error.code === 'not_found'
          ? `ElevenLabs has no agent ${link.agentId} (in the workspace of ELEVENLABS_API_KEY).`
          : `Could not check agent ${link.agentId}: ${agent.error.detail}`,
      ...(agent.error.code === 'not_found' ? {} : { unchecked: true as const }),
    });
  }
  for (const [i, n] of link.numbers.entries()) {
    const field = ['phone_number_id', String(i)];
    const got = await lookups.phoneNumber(n.phoneNumberId);
    if (!got.ok) {
      problems.push({
        field,
        message:
          got.error.code === 'not_found'
            ? `ElevenLabs has no phone number ${n.phoneNumberId} (given for ${n.e164}).`
            : `Could not check phone number ${n.phoneNumberId}: ${got.error.detail}`,
        ...(got.error.code === 'not_found' ? {} : { unchecked: true as const }),
      });
      continue;
    }
    const number = got.value;
    if (number.phoneNumber !== n.e164) {
      problems.push({
        field,
        message: `Phone number ${n.phoneNumberId} is ${number.phoneNumber} in ElevenLabs, not ${n.e164}.`,
      });
    }
    const assigned = number.assignedAgent?.agentId ?? null;
    if (assigned !== link.agentId) {
      problems.push({
        field,
        message: assigned
          ? `Phone number ${n.phoneNumberId} is assigned to agent ${assigned} in ElevenLabs, not to ${link.agentId}.`
          : `Phone number ${n.phoneNumberId} is assigned to no agent in ElevenLabs: assign it to ${link.agentId} first.`,
      });
    }
    if (number.provider !== n.telephony) {
      const fix =
        number.provider === 'sip_trunk'
          ? `add :sip_trunk after its id (${n.e164}=${n.phoneNumberId}:sip_trunk)`
          : number.provider === 'twilio'
            ? `leave :sip_trunk off (${n.e164}=${n.phoneNumberId})`
            : 'only Twilio and SIP trunk numbers can place calls here';
      problems.push({
        field,
        message: `Phone number ${n.phoneNumberId} is a ${number.provider} number in ElevenLabs, not ${n.telephony}: ${fix}.`,
      });
    }
  }
  return problems;
}
