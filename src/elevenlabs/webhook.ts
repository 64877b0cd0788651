import { z } from 'zod';
import type { ProviderEndStatus, ProviderEvent } from '../provider/index.ts';
import { type ConversationFacts, conversationFacts } from './facts.ts';

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
  | { kind: 'invalid' };

const failureStatus = (reason: string | null | undefined): ProviderEndStatus =>
  reason === 'busy' ? 'busy' : reason === 'no-answer' || reason === 'no_answer' ? 'no_answer' : 'failed';

export function parseWebhook(body: unknown): ParsedWebhook {
  const e = envelope.safeParse(body);
  if (!e.success) return { kind: 'invalid' };
  const at = new Date(e.data.event_timestamp * 1000);
  if (e.data.type === 'post_call_transcription') {
    const facts = conversationFacts(e.data.data);
    return facts ? { kind: 'conversation', facts } : { kind: 'invalid' };
  }
  if (e.data.type === 'call_initiation_failure') {
    const f = initiationFailure.safeParse(e.data.data);
    if (!f.success) return { kind: 'invalid' };
    return {
      kind: 'initiation_failure',
      event: {
        type: 'call.ended',
        providerCallId: f.data.conversation_id,
        callId: null,
        status: failureStatus(f.data.failure_reason),
        disconnectReason: f.data.failure_reason ?? 'failed',
        at,
      },
    };
  }
  return { kind: 'other', type: e.data.type };
}
