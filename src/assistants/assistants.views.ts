import type { AssistantRow } from './assistants.table.ts';

/** Spec 2.2. */
export type AssistantView = {
  id: string;
  name: string;
  description: string;
  language: string;
  voice_id: string;
  is_active: boolean;
  phone_numbers: string[];
  created_at: string;
  updated_at: string;
};

export type AssistantsPage = {
  data: AssistantView[];
  pagination: { limit: number; offset: number; total: number };
  /** Additive (spec 4.11): keyset continuation after this page; null at the end. */
  next_cursor: string | null;
};

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
