import type { Selectable } from 'kysely';

export interface TranscriptsTable {
  call_id: string;
  customer_id: string;
  conversation_id: string;
  /** jsonb: REST-form segments `[{ speaker, text, timestamp }]`, the one stored form. */
  segments: unknown;
  created_at: Date;
}
export type TranscriptRow = Selectable<TranscriptsTable>;
