import type { FastifyInstance } from 'fastify';
import { type DashboardContext, sendHtml, sessionOf, userOf } from './context.ts';
import { queryOf } from './forms.ts';
import { usagePage } from './views/usage.view.ts';

const PERIODS = [7, 14, 30];

export function registerUsageRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { services } = ctx;
  app.get('/usage', async (request, reply) => {
    const s = sessionOf(request);
    const asked = Number(queryOf(request.query).days);
    const days = PERIODS.includes(asked) ? asked : 7;
    const [keys, report] = await Promise.all([
      services.keys.listKeys(s.accountId, s.mode),
      services.dashboard.usage.report(s.customerId, days),
    ]);
    return sendHtml(reply, usagePage({ user: userOf(s), keys, report, days }));
  });
}
