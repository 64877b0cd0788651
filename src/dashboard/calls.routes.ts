import type { FastifyInstance } from 'fastify';
import { listCallsQuery } from '../calls/index.ts';
import { notFound } from '../errors/index.ts';
import { zodIssues } from '../http/index.ts';
import { isUuid } from '../ids.ts';
import { type DashboardContext, sendHtml, sessionOf, userOf } from './context.ts';
import { queryOf, utcInput } from './forms.ts';
import { assistantsPage, type CallFilters, callDetailPage, callsListPage } from './views/calls.view.ts';

const FILTER_FIELDS = ['direction', 'status', 'assistant_id', 'from', 'to', 'limit'] as const;

export function registerCallsRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { services } = ctx;

  app.get('/calls', async (request, reply) => {
    const s = sessionOf(request);
    const q = queryOf(request.query);
    const pageNumber = /^\d{1,6}$/.test(q.page ?? '') ? Number(q.page) : 0;
    const filters: CallFilters = {
      direction: q.direction ?? '',
      status: q.status ?? '',
      assistant_id: q.assistant_id ?? '',
      from: q.from ? utcInput(q.from) : '',
      to: q.to ? utcInput(q.to) : '',
      limit: q.limit ?? '',
      page: pageNumber,
    };
    // The API's own query schema, so the dashboard filters exactly as GET /calls does.
    const apiQuery: Record<string, string> = {};
    for (const k of FILTER_FIELDS) if (filters[k]) apiQuery[k] = filters[k];
    if (pageNumber > 0) apiQuery.page = String(pageNumber);
    const parsed = listCallsQuery.safeParse(apiQuery);
    const assistants = await services.assistants.listAssistants(s.accountId, { limit: 100 });
    const page = (list: Pick<Parameters<typeof callsListPage>[0], 'calls' | 'hasMore' | 'issues'>) =>
      callsListPage({ user: userOf(s), filters, assistants: assistants.data, ...list });
    if (!parsed.success) {
      const issues = zodIssues(parsed.error, 'query').map((i) => ({
        field: i.path[1],
        message: `${i.path[1] ?? 'filter'}: ${i.message}`,
      }));
      return sendHtml(reply, page({ calls: [], hasMore: false, issues }), 422);
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
