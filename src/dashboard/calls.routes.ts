import type { FastifyInstance } from 'fastify';
import { listCallsQuery } from '../calls/index.ts';
import { notFound } from '../errors/index.ts';
import { storable, unstorable, zodIssues } from '../http/index.ts';
import { isUuid } from '../ids.ts';
import { type DashboardContext, sendHtml, sessionOf, userOf } from './context.ts';
import { queryOf, utcInput } from './forms.ts';
import {
  assistantsPage,
  CALL_FILTER_FIELDS,
  type CallFilters,
  callDetailPage,
  callsListPage,
} from './views/calls.view.ts';

export function registerCallsRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { services } = ctx;

  app.get('/calls', async (request, reply) => {
    const s = sessionOf(request);
    const q = queryOf(request.query);
    const pageNumber = /^\d{1,6}$/.test(q.page ?? '') ? Number(q.page) : 0;
    // Every filter as sent (shown back fit to show: text the database cannot keep is refused below); the times of
    // datetime-local fields read as UTC.
    const filters: CallFilters = { page: pageNumber };
    const unkept: { field: string; message: string }[] = [];
    for (const k of CALL_FILTER_FIELDS) {
      const value = q[k] ?? '';
      const what = unstorable(value);
      if (what) unkept.push({ field: k, message: `${k}: must not contain ${what}.` });
      const shown = storable(value);
      filters[k] = shown && (k === 'from' || k === 'to' || k === 'updated_since') ? utcInput(shown) : shown;
    }
    // The API's own query schema, so the dashboard filters exactly as GET /calls does.
    const apiQuery: Record<string, string> = {};
    for (const k of CALL_FILTER_FIELDS) if (filters[k]) apiQuery[k] = filters[k];
    if (pageNumber > 0) apiQuery.page = String(pageNumber);
    const parsed = listCallsQuery.safeParse(apiQuery);
    const assistants = await services.assistants.listAssistants(s.accountId, { limit: 100 });
    const page = (list: Pick<Parameters<typeof callsListPage>[0], 'calls' | 'hasMore' | 'issues'>) =>
      callsListPage({ user: userOf(s), filters, assistants: assistants.data, ...list });
    if (!parsed.success || unkept.length > 0) {
      const issues = parsed.success
        ? []
        : zodIssues(parsed.error, 'query')
            .filter((i) => !unkept.some((u) => u.field === i.path[1]))
            .map((i) => ({ field: i.path[1], message: `${i.path[1] ?? 'filter'}: ${i.message}` }));
      return sendHtml(reply, page({ calls: [], hasMore: false, issues: [...unkept, ...issues] }), 422);
    }
    const result = await services.calls.listCalls(s.customerId, parsed.data);
    return sendHtml(reply, page({ calls: result.data, hasMore: result.next_cursor !== null, issues: [] }));
  });

  app.get('/calls/:id', async (request, reply) => {
    const s = sessionOf(request);
    const id = (request.params as { id: string }).id;
    if (!isUuid(id)) throw notFound('Call');
    const call = await services.calls.getCall(s.customerId, id.toLowerCase());
    const [transcript, insights] = await Promise.all([
      services.transcripts.fetchAndStore(s.customerId, call.id),
      services.dashboard.callInsights(s.customerId, call.id),
    ]);
    return sendHtml(reply, callDetailPage({ user: userOf(s), call, transcript, insights }));
  });

  app.get('/assistants', async (request, reply) => {
    const s = sessionOf(request);
    const list = await services.assistants.listAssistants(s.accountId, { limit: 100 });
    const agents = await services.agentLinks.agentLinks(list.data.map((a) => a.id));
    return sendHtml(
      reply,
      assistantsPage({ user: userOf(s), assistants: list.data, total: list.pagination.total, agents }),
    );
  });
}
