import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { apiResponses } from '../http/index.ts';
import { requirePrincipal } from '../keys/index.ts';
import { type ExportQuery, exportFormat, exportQuery } from './export.query.ts';
import type { CallExport } from './export.service.ts';

const MEDIA = { csv: 'text/csv; charset=utf-8', ndjson: 'application/x-ndjson; charset=utf-8' } as const;

const exportBody = (description: string, example: string) => ({
  schema: z.string().meta({ description, examples: [example] }),
});

/** GET /calls/export (scope read_calls): every call of the list's filters, streamed as CSV or NDJSON. */
export function registerCallExport(app: FastifyInstance, service: CallExport): void {
  const problems = apiResponses({}, ['perm.denied', 'input.invalid']);
  app.get(
    '/calls/export',
    {
      config: { scope: 'read_calls' },
      schema: {
        operationId: 'exportCalls',
        summary: 'Export calls (CSV or NDJSON)',
        description:
          'Every call matching the filters of `GET /calls`, newest first, streamed as it is read (no page size, no ' +
          'cursor): CSV with a header row (the detail fields of `GET /calls/{id}`; objects as JSON; text a ' +
          "spreadsheet would run as a formula starts with `'`) or NDJSON (one detail object per line). `format` " +
          'wins over `Accept`; CSV by default. `include=transcript,insights` adds those columns. Memory stays flat ' +
          'whatever the size; closing the connection stops the reads.',
        tags: ['Calls'],
        querystring: exportQuery,
        response: {
          200: {
            description: 'The calls, as a file (`Content-Disposition: attachment`).',
            content: {
              'text/csv': exportBody(
                'CSV (RFC 4180, CRLF line ends), header first.',
                'id,direction,status,started_at\r\n1d5a3c9e-8f0b-4e6a-9c2d-7b1e4f3a6c58,inbound,completed,2026-11-21T10:00:00.000Z\r\n',
              ),
              'application/x-ndjson': exportBody(
                'One call per line (the detail shape of GET /calls/{id}).',
                '{"id":"1d5a3c9e-8f0b-4e6a-9c2d-7b1e4f3a6c58","direction":"inbound","status":"completed"}\n',
              ),
            },
          },
          ...problems,
        },
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request);
      const q = request.query as ExportQuery;
      const format = exportFormat(q, request.headers.accept);
      const stopped = new AbortController();
      // The response's end, or the client going away: either way no more batches are read.
      reply.raw.on('close', () => stopped.abort());
      const day = new Date().toISOString().slice(0, 10);
      reply
        .type(MEDIA[format])
        .header(
          'content-disposition',
          `attachment; filename="calls-${day}.${format === 'csv' ? 'csv' : 'ndjson'}"`,
        )
        .header('cache-control', 'no-store');
      // One chunk (a batch) ahead of the socket, not the 16 an object stream buffers by default: memory stays a batch.
      const chunks = service.stream(principal.customerId, q, format, stopped.signal);
      return reply.send(Readable.from(chunks, { highWaterMark: 1 }));
    },
  );
}
