import { z } from 'zod';
import type { ProviderEndStatus, ProviderEvent } from '../provider/index.ts';
import { readAnswer } from './answers.ts';
import { type ConversationFacts, readConversation } from './facts.ts';

/**
 * The envelope of ElevenLabs' post-call webhooks: `type`, `event_timestamp` (unix seconds) and `data`. The SDK
 * types only the event names (serialization/types/WebhookEventType.d.ts), not the payloads; `data` of
 * `post_call_transcription` is the GET conversation model, `call_initiation_failure` carries `agent_id`,
 * `conversation_id`, `failure_reason` and `metadata` (ElevenLabs' post-call webhook documentation).
 */
const envelope = z.object({ type: z.string(), event_timestamp: z.number(), data: z.unknown() });

const initiationFailure = z.object({
  agent_id: z.string(),
  conversation_id: z.string(),
  failure_reason: z.string().nullish(),
});

export type ParsedWebhook =
  | { kind: 'conversation'; facts: ConversationFacts }
  | { kind: 'initiation_failure'; event: ProviderEvent }
  | { kind: 'other'; type: string }
  /** Not a post-call webhook we can read: each field we need that it lacks, by its wire path. */
  | { kind: 'invalid'; problems: string[] };

const failureStatus = (reason: string | null | undefined): ProviderEndStatus =>
  reason === 'busy' ? 'busy' : reason === 'no-answer' || reason === 'no_answer' ? 'no_answer' : 'failed';

export function parseWebhook(body: unknown): ParsedWebhook {
  const e = readAnswer(envelope, body);
  if (!e.ok) return { kind: 'invalid', problems: e.problems };
  const at = new Date(e.value.event_timestamp * 1000);
  const inData = (problems: string[]) => problems.map((p) => `data.${p}`);
  if (e.value.type === 'post_call_transcription') {
    const facts = readConversation(e.value.data);
    return facts.ok
      ? { kind: 'conversation', facts: facts.value }
      : { kind: 'invalid', problems: inData(facts.problems) };
  }
  if (e.value.type === 'call_initiation_failure') {
    const f = readAnswer(initiationFailure, e.value.data);
    if (!f.ok) return { kind: 'invalid', problems: inData(f.problems) };
    return {
      kind: 'initiation_failure',
      event: {
        type: 'call.ended',
        providerCallId: f.value.conversation_id,
        callId: null,
        status: failureStatus(f.value.failure_reason),
        disconnectReason: f.value.failure_reason ?? 'failed',
        at,
      },
    };
  }
  return { kind: 'other', type: e.value.type };
}
