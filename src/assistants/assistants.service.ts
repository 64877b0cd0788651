import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { type Issue, invalidInput } from '../errors/app-error.ts';
import { newUuid } from '../ids.ts';
import { checkE164 } from '../phone.ts';
import * as repo from './assistants.repository.ts';
import type { AssistantRow } from './assistants.table.ts';
import { isVoiceId, VOICE_IDS } from './voices.ts';

export type NewAssistantInput = {
  customerId: string;
  name: string;
  description?: string;
  language?: string;
  voiceId: string;
  phoneNumbers?: readonly string[];
  isActive?: boolean;
};

const LOCALE_RE = /^[a-z]{2,3}(-[A-Z]{2})?$/;

export function createAssistantsService(deps: { db: Database; clock: Clock }) {
  const { db, clock } = deps;
  return {
    async createAssistant(input: NewAssistantInput): Promise<AssistantRow> {
      const language = input.language ?? 'en-US';
      const phones = input.phoneNumbers ?? [];
      const issues: Issue[] = [
        ...(input.name.trim() ? [] : [{ path: ['name'], message: 'Name must not be empty.' }]),
        ...(LOCALE_RE.test(language)
          ? []
          : [{ path: ['language'], message: 'Must be a locale tag such as en-US.' }]),
        ...(isVoiceId(input.voiceId)
          ? []
          : [{ path: ['voice_id'], message: `Must be one of: ${VOICE_IDS.join(', ')}.` }]),
        ...phones.flatMap((p, i) => {
          const check = checkE164(p);
          return check.ok ? [] : [{ path: ['phone_numbers', String(i)], message: check.reason }];
        }),
      ];
      if (issues.length > 0) throw invalidInput(issues);
      const now = clock.now();
      const row: AssistantRow = {
        id: newUuid(),
        customer_id: input.customerId,
        name: input.name.trim(),
        description: input.description ?? '',
        language,
        voice_id: input.voiceId,
        is_active: input.isActive ?? true,
        phone_numbers: [...new Set(phones)],
        created_at: now,
        updated_at: now,
      };
      await repo.insertAssistant(db, row);
      return row;
    },
  };
}

export type AssistantsService = ReturnType<typeof createAssistantsService>;
