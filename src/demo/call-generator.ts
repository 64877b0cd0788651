import { billableSeconds, costUnits, formatUsd, newCallRow } from '../calls/index.ts';
import type { AssistantRow, NewCall } from '../db/index.ts';
import { newUuid } from '../ids.ts';
import { pick, randomNanpNumber } from '../provider/index.ts';
import { archivedInput, buildScript, conversationIdFor } from '../simulator/index.ts';

const CALLER_NAMES = [
  'Maria Garcia',
  'James Smith',
  'Wei Chen',
  'Aisha Khan',
  'Lucas Martin',
  'Emma Dubois',
  'Noah Wilson',
  'Olivia Brown',
  'Liam Tremblay',
  'Sofia Rossi',
];
/** Outbound share of an assistant's calls when the seed does not say (most demo lines mostly answer). */
const DEFAULT_OUTBOUND_SHARE = 0.35;

/**
 * The summary of the conversation the simulator reads back for this id: the id names the call's direction
 * and the assistant's language (conversationIdFor), so transcript and summary match the call.
 */
function scriptedSummary(conversationId: string): string | null {
  const input = archivedInput(conversationId);
  return input ? buildScript(conversationId, input).details.summary : null;
}

/** Finished calls spread over the `days` before `end`, as the simulator would have recorded them. */
export function generateCalls(options: {
  customerId: string;
  assistants: AssistantRow[];
  count: number;
  end: Date;
  days: number;
  random: () => number;
  /** Per assistant id, the share of its calls that are outbound (a reminder line calls out, a front desk answers). */
  outboundShare?: Readonly<Record<string, number>>;
}): NewCall[] {
  const { random } = options;
  const rows: NewCall[] = [];
  for (let i = 0; i < options.count; i++) {
    const assistant = pick(random, options.assistants);
    const ownNumber = assistant.phone_numbers[0] ?? '+14155550100';
    const outbound = random() < (options.outboundShare?.[assistant.id] ?? DEFAULT_OUTBOUND_SHARE);
    const direction = outbound ? 'outbound' : 'inbound';
    const started = new Date(options.end.getTime() - Math.floor(random() * options.days * 86_400_000));
    const roll = random();
    const status = roll < 0.82 ? 'completed' : roll < 0.9 ? 'no_answer' : roll < 0.96 ? 'busy' : 'failed';
    const answered = status === 'completed';
    const ring = 2 + Math.floor(random() * 12);
    const talk = answered ? 20 + Math.floor(random() * 600) : 0;
    const answeredAt = answered ? new Date(started.getTime() + ring * 1000) : null;
    const endedAt = new Date(started.getTime() + (ring + talk) * 1000);
    const billable = billableSeconds(talk, answered);
    const other = randomNanpNumber(random);
    const conversationId = answered ? conversationIdFor(direction, assistant.language) : null;
    rows.push(
      newCallRow({
        id: newUuid(),
        customer_id: options.customerId,
        assistant_id: assistant.id,
        direction,
        status,
        started_at: started,
        answered_at: answeredAt,
        ended_at: endedAt,
        duration_seconds: talk,
        from_number: outbound ? ownNumber : other,
        to_number: outbound ? other : ownNumber,
        caller_name: outbound ? null : pick(random, CALLER_NAMES),
        api_initiated: outbound && random() < 0.6,
        has_transcript: answered,
        recording_available: answered && random() < 0.9,
        summary: conversationId ? scriptedSummary(conversationId) : null,
        disconnect_reason: answered ? pick(random, ['caller_hangup', 'assistant_hangup']) : status,
        conversation_id: conversationId,
        cost_usd: formatUsd(costUnits(billable)),
        billable_seconds: billable,
        created_at: started,
        updated_at: endedAt,
      }),
    );
  }
  return rows;
}
