import type { Selectable } from 'kysely';

export interface AssistantsTable {
  id: string;
  customer_id: string;
  name: string;
  description: string;
  language: string;
  voice_id: string;
  is_active: boolean;
  phone_numbers: string[];
  created_at: Date;
  updated_at: Date;
}
export type AssistantRow = Selectable<AssistantsTable>;
