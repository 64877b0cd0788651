import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { exportQuery } from '../call-export/index.ts';
import { type DashboardContext, sessionOf } from './context.ts';
import { queryOf, utcInput } from './forms.ts';
import { CALL_FILTER_FIELDS } from './views/calls.view.ts';

/**
 * The calls page's download: the list's filters as shown (times of the form read as UTC), through the API's export
 * (the same stream, the session's customer and view). Filters the export refuses send the reader back to the list,
 * which says what is wrong with them.
 */
export function registerCallsExportRoute(app: FastifyInstance, ctx: DashboardContext): void {
  app.get('/calls/export', async (request, reply) => {
    const s = sessionOf(request);
    const q = queryOf(request.query);
    const filters: Record<string, string> = {};
    for (const k of CALL_FILTER_FIELDS) {
      const value = q[k];
      if (value) filters[k] = k === 'from' || k === 'to' || k === 'updated_since' ? utcInput(value) : value;
    }
    const format = q.format === 'ndjson' ? 'ndjson' : 'csv';
    const parsed = exportQuery.safeParse({ ...filters, format });
    if (!parsed.success) return reply.redirect(`/dashboard/calls?${new URLSearchParams(filters)}`, 303);
    const stopped = new AbortController();
    reply.raw.on('close', () => stopped.abort());
    const day = new Date().toISOString().slice(0, 10);
    const chunks = ctx.services.callExport.stream(s.customerId, parsed.data, format, stopped.signal);
    return reply
      .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
      .header('content-disposition', `attachment; filename="calls-${day}.${format}"`)
      .header('cache-control', 'no-store')
      .send(Readable.from(chunks, { highWaterMark: 1 }));
  });
}
