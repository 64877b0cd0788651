import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AppError } from '../errors/index.ts';
import { zodIssues } from '../http/index.ts';
import { enumParam, intParam, MAX_CURSOR_LENGTH, tokenParam, uuidParam } from '../pagination/index.ts';
import type { MessageView } from '../sms/index.ts';
import { type DashboardContext, sendHtml, sessionOf, userOf } from './context.ts';
import { queryOf } from './forms.ts';
import {
  MESSAGE_STATUSES,
  type MessageFilters,
  messageDetailPage,
  messagesListPage,
} from './views/messages.view.ts';

/** The filters of GET /sms/messages, read as the API reads them (a malformed one is listed, never a 500). */
const listQuery = z.object({
  assistant_id: uuidParam(),
  api_key_id: uuidParam(),
  direction: enumParam(['inbound', 'outbound'] as const),
  status: enumParam(MESSAGE_STATUSES),
  limit: intParam(1, 100),
  cursor: tokenParam(MAX_CURSOR_LENGTH),
});
const FILTER_FIELDS = ['assistant_id', 'api_key_id', 'direction', 'status', 'limit', 'cursor'] as const;

type Issue = { field?: string; message: string };
const LABELS: Record<string, string> = {
  assistant_id: 'Assistant',
  api_key_id: 'API key',
  direction: 'Direction',
  status: 'Status',
  limit: 'Per page',
  cursor: 'Page',
};
const CURSOR_ISSUE = 'This page link no longer matches the filters; start again from the newest messages.';
const issueOf = (name: string | undefined, message: string): Issue =>
  name === 'cursor'
    ? { message: CURSOR_ISSUE }
    : name && name in LABELS
      ? { field: name, message: `${LABELS[name]}: ${message}` }
      : { message };

/** Text messages, sent and received: the list with the API's filters and cursor, and each message's detail. */
export function registerMessagesRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { services } = ctx;

  app.get('/messages', async (request, reply) => {
    const s = sessionOf(request);
    const q = queryOf(request.query);
    const filters: MessageFilters = {
      assistant_id: q.assistant_id ?? '',
      api_key_id: q.api_key_id ?? '',
      direction: q.direction ?? '',
      status: q.status ?? '',
      limit: q.limit ?? '',
      cursor: q.cursor ?? '',
    };
    const apiQuery: Record<string, string> = {};
    for (const k of FILTER_FIELDS) if (filters[k]) apiQuery[k] = filters[k];
    const [assistants, keys] = await Promise.all([
      services.assistants.listAssistants(s.accountId, { limit: 100 }),
      services.keys.listKeys(s.accountId, s.mode),
    ]);
    const page = (messages: MessageView[], nextCursor: string | null, issues: Issue[]) =>
      messagesListPage({
        user: userOf(s),
        filters,
        assistants: assistants.data,
        keys,
        messages,
        nextCursor,
        issues,
      });
    const parsed = listQuery.safeParse(apiQuery);
    if (!parsed.success) {
      const issues = zodIssues(parsed.error, 'query').map((i) => issueOf(i.path[1], i.message));
      return sendHtml(reply, page([], null, issues), 422);
    }
    try {
      // The session's customer: in the test view, the test twin, whose messages are those sent with test keys.
      const result = await services.sms.list(s.customerId, parsed.data);
      return sendHtml(reply, page(result.data, result.next_cursor, []));
    } catch (error) {
      // A cursor of another list (other filters, customer or view) is refused by the codec.
      if (!(error instanceof AppError) || error.code !== 'input.invalid') throw error;
      const issues = (error.issues ?? []).map((i) => issueOf(i.path[1], i.message));
      return sendHtml(reply, page([], null, issues), 422);
    }
  });

  app.get('/messages/:id', async (request, reply) => {
    const s = sessionOf(request);
    const id = (request.params as { id: string }).id;
    // Another customer's message, or one of the other view, is not found, like a missing one.
    const [message, assistants] = await Promise.all([
      services.sms.get(s.customerId, id),
      services.assistants.listAssistants(s.accountId, { limit: 100 }),
    ]);
    const assistant = assistants.data.find((a) => a.id === message.assistant_id);
    return sendHtml(reply, messageDetailPage({ user: userOf(s), message, assistant }));
  });
}
