import { z } from 'zod';
import type { AssistantRow } from '../db/index.ts';
import { CURSOR_EXAMPLE } from '../pagination/index.ts';

/** Spec 2.2. */
export const assistantSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    language: z.string().meta({ description: 'Locale tag, e.g. en-US.' }),
    voice_id: z.string(),
    is_active: z.boolean(),
    phone_numbers: z
      .array(z.string())
      .meta({ description: 'E.164 numbers; the first places outbound calls.' }),
    created_at: z.string().meta({ format: 'date-time' }),
    updated_at: z.string().meta({ format: 'date-time' }),
  })
  .meta({
    id: 'Assistant',
    examples: [
      {
        id: '7c0e2b8a-3f4d-4b6e-8a1c-5d9f2e7b3a10',
        name: 'Front desk',
        description: 'Answers the main line and books appointments.',
        language: 'en-US',
        voice_id: 'aria',
        is_active: true,
        phone_numbers: ['+14155550100'],
        created_at: '2026-11-01T09:00:00.000Z',
        updated_at: '2026-11-01T09:00:00.000Z',
      },
    ],
  });
export type AssistantView = z.output<typeof assistantSchema>;

/** GET /assistants 200 (spec 4.2). */
export const assistantsPageSchema = z
  .object({
    data: z.array(assistantSchema),
    pagination: z.object({
      limit: z
        .number()
        .int()
        .meta({ examples: [50] }),
      offset: z
        .number()
        .int()
        .meta({ examples: [0] }),
      total: z
        .number()
        .int()
        .meta({ description: 'Assistants matching the request, across all pages.', examples: [3] }),
    }),
    next_cursor: z
      .string()
      .nullable()
      .meta({
        description: 'Additive (spec 4.11): pass as `cursor` to continue after this page; null at the end.',
        examples: [CURSOR_EXAMPLE],
      }),
  })
  .meta({ id: 'AssistantsPage' });
export type AssistantsPage = z.output<typeof assistantsPageSchema>;

export function rowToAssistant(r: Omit<AssistantRow, 'customer_id'>): AssistantView {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    language: r.language,
    voice_id: r.voice_id,
    is_active: r.is_active,
    phone_numbers: r.phone_numbers,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}
