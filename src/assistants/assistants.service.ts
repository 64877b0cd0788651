import type { Clock } from '../clock.ts';
import type { AssistantRow, Database } from '../db/index.ts';
import { type Issue, invalidInput, notFound } from '../errors/index.ts';
import { newUuid } from '../ids.ts';
import { createCursorCodec, positionOfRow } from '../pagination/index.ts';
import { checkE164 } from '../phone.ts';
import type { Signer } from '../signer.ts';
import { ASSISTANTS_DEFAULT_LIMIT, type ListAssistantsQuery } from './assistants.query.ts';
import * as repo from './assistants.repository.ts';
import { type AssistantsPage, rowToAssistant } from './assistants.views.ts';
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

export function createAssistantsService(deps: { db: Database; clock: Clock; signer: Signer }) {
  const { db, clock } = deps;
  const cursors = createCursorCodec(deps.signer, 'assistants-cursor');
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

    /**
     * GET /assistants: newest first (`created_at desc, id desc`). `cursor` wins over `offset`/`page`;
     * with a cursor, `pagination.offset` is the number of assistants before this page. With `id`, the
     * list holds that one assistant, and an id that is not the caller's is 404.
     */
    async listAssistants(customerId: string, q: ListAssistantsQuery): Promise<AssistantsPage> {
      const filter = { customerId, id: q.id };
      const scope = [customerId, q.id ?? null];
      const limit = q.limit ?? ASSISTANTS_DEFAULT_LIMIT;
      const after = q.cursor ? cursors.decode(q.cursor, scope) : null;
      const position = after ? { atIso: after.at.iso, id: after.id } : null;
      const start: repo.AssistantPageStart = position
        ? { after: position }
        : { offset: q.offset ?? (q.page ?? 0) * limit };
      const rows = await repo.assistantPageQuery(db, filter, start, limit + 1).execute();
      // The counts come with the rows; only a page past the end (no row) asks for them apart.
      const first = rows[0];
      const total = first ? Number(first.total) : await repo.countAssistants(db, filter);
      const offset =
        'offset' in start
          ? start.offset
          : first
            ? Number(first.before)
            : await repo.countAssistants(db, filter, start.after);
      if (q.id && total === 0) throw notFound('Assistant');
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        data: page.map(rowToAssistant),
        pagination: { limit, offset, total },
        next_cursor: rows.length > limit && last ? cursors.encode(positionOfRow(last), scope) : null,
      };
    },
  };
}

export type AssistantsService = ReturnType<typeof createAssistantsService>;
