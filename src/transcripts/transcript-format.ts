import type { ProviderTurn } from '../provider/index.ts';

/** REST form (spec 2.5): `speaker` / `text` / `timestamp` and `full_text`. This is also the stored form. */
export type RestSegment = { speaker: 'caller' | 'assistant'; text: string; timestamp: string };
export type RestTranscript = { full_text: string; segments: RestSegment[] };

/** Webhook form (spec 6.4 call.transcript.ready): `role` / `text` / `ts` and `plain_text`. */
export type WebhookSegment = { role: 'user' | 'assistant'; text: string; ts: string };
export type WebhookTranscript = { format: 'segments'; segments: WebhookSegment[]; plain_text: string };

const LABEL = { caller: 'Caller', assistant: 'Assistant' } as const;

/** Speaker-prefixed text, one line per segment: `Assistant: Hello.` / `Caller: Hi.` */
export const speakerText = (segments: readonly RestSegment[]): string =>
  segments.map((s) => `${LABEL[s.speaker]}: ${s.text}`).join('\n');

export const restTranscript = (segments: RestSegment[]): RestTranscript => ({
  full_text: speakerText(segments),
  segments,
});

/** The provider's turns (offsets from the start) as our segments, anchored at the conversation's start. */
export function segmentsFromTurns(turns: readonly ProviderTurn[], start: Date): RestSegment[] {
  return turns.map((t) => ({
    speaker: t.role === 'agent' ? 'assistant' : 'caller',
    text: t.message,
    timestamp: new Date(start.getTime() + Math.round(t.offsetSeconds * 1000)).toISOString(),
  }));
}

/** REST → webhook: caller ↔ user, assistant ↔ assistant; plain_text is the same speaker-prefixed text. */
export function toWebhookTranscript(rest: RestTranscript): WebhookTranscript {
  return {
    format: 'segments',
    segments: rest.segments.map((s) => ({
      role: s.speaker === 'caller' ? 'user' : 'assistant',
      text: s.text,
      ts: s.timestamp,
    })),
    plain_text: rest.full_text,
  };
}

/** Webhook → REST, the exact inverse of toWebhookTranscript. */
export function fromWebhookTranscript(webhook: WebhookTranscript): RestTranscript {
  return {
    full_text: webhook.plain_text,
    segments: webhook.segments.map((s) => ({
      speaker: s.role === 'user' ? 'caller' : 'assistant',
      text: s.text,
      timestamp: s.ts,
    })),
  };
}

/** Largest transcript a `call.transcript.ready` delivery carries; the REST endpoint always has it whole. */
export const WEBHOOK_TRANSCRIPT_MAX_BYTES = 64 * 1024;

/**
 * The webhook form cut to a size: whole segments are dropped from the end until it fits, and
 * `truncated` says so. plain_text always matches the segments kept.
 */
export function boundedWebhookTranscript(
  rest: RestTranscript,
  maxBytes = WEBHOOK_TRANSCRIPT_MAX_BYTES,
): { transcript: WebhookTranscript; truncated: boolean } {
  let kept = rest.segments;
  const size = (segments: RestSegment[]) =>
    Buffer.byteLength(JSON.stringify(toWebhookTranscript(restTranscript(segments))), 'utf8');
  while (kept.length > 0 && size(kept) > maxBytes) kept = kept.slice(0, -1);
  const truncated = kept.length < rest.segments.length;
  return { transcript: toWebhookTranscript(truncated ? restTranscript(kept) : rest), truncated };
}
