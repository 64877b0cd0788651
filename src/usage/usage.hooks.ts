import type { FastifyInstance } from 'fastify';
import type { UsageService } from './usage.service.ts';

/**
 * Metering: every request authenticated by a key is counted, whatever else the app registers (the dashboard
 * only reads the counts). Counted in onSend (the status is final there) so the count exists before the client
 * has its answer; what is still in memory is written when the app closes.
 */
export function registerUsageCounting(app: FastifyInstance, usage: UsageService): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    const p = request.principal;
    if (p) usage.record(p.keyId, p.customerId, reply.statusCode);
    done(null, payload);
  });
  app.addHook('onClose', async () => {
    await usage.stop();
  });
}
