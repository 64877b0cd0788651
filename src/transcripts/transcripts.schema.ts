import { z } from 'zod';
import { sameShape } from '../http/index.ts';
import type { RestTranscript, WebhookTranscript } from './transcript-format.ts';
import type { restView } from './transcripts.service.ts';

const instant = z.string().meta({ format: 'date-time' });

/** REST form (spec 2.5): `speaker` / `text` / `timestamp` and `full_text`. */
export const restTranscriptSchema = z.object({
  full_text: z.string().meta({ description: 'One line per segment: `Assistant: …` / `Caller: …`.' }),
  segments: z.array(
    z.object({
      speaker: z.enum(['caller', 'assistant']),
      text: z.string(),
      timestamp: instant,
    }),
  ),
});
sameShape<RestTranscript, z.output<typeof restTranscriptSchema>>();

/** GET /calls/{id}/transcript 200. */
export const transcriptSchema = z
  .object({
    call_id: z.uuid(),
    conversation_id: z.string(),
    transcript: restTranscriptSchema,
  })
  .meta({
    id: 'Transcript',
    examples: [
      {
        call_id: '1d5a3c9e-8f0b-4e6a-9c2d-7b1e4f3a6c58',
        conversation_id: 'conv_8f2a61c0',
        transcript: {
          full_text: 'Assistant: Hello, this is Acme.\nCaller: Hi, I would like to book a table.',
          segments: [
            { speaker: 'assistant', text: 'Hello, this is Acme.', timestamp: '2026-11-21T10:00:04.000Z' },
            {
              speaker: 'caller',
              text: 'Hi, I would like to book a table.',
              timestamp: '2026-11-21T10:00:07.500Z',
            },
          ],
        },
      },
    ],
  });
sameShape<ReturnType<typeof restView>, z.output<typeof transcriptSchema>>();

/** GET …/transcript 202 (spec 3.2): not ready yet. */
export const transcriptPendingSchema = z
  .object({
    status: z.literal('pending'),
    call_id: z.uuid(),
    conversation_id: z.string().nullable().meta({ description: 'Null while the call is not answered yet.' }),
    retry_after_seconds: z.number().int().meta({ description: 'When asking again is worthwhile.' }),
    detail: z.string(),
  })
  .meta({
    id: 'TranscriptPending',
    examples: [
      {
        status: 'pending',
        call_id: '1d5a3c9e-8f0b-4e6a-9c2d-7b1e4f3a6c58',
        conversation_id: 'conv_8f2a61c0',
        retry_after_seconds: 10,
        detail:
          'The transcript is still settling upstream; it will be pushed as call.transcript.ready, or ask again later.',
      },
    ],
  });

/** Webhook form (spec 6.4 call.transcript.ready): `role` / `text` / `ts` and `plain_text`. */
export const webhookTranscriptSchema = z.object({
  format: z.literal('segments'),
  segments: z.array(z.object({ role: z.enum(['user', 'assistant']), text: z.string(), ts: instant })),
  plain_text: z.string(),
});
sameShape<WebhookTranscript, z.output<typeof webhookTranscriptSchema>>();
