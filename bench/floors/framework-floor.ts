/**
 * A second floor for scenario 2, for the report only: the service's framework (Fastify, on the same TLS) answering
 * the whoami route with a body of the same shape, the same response headers (request id, HSTS, three rate-limit
 * headers), a UUID request id and the service's three per-request hooks left empty. No key, no limiter, no
 * database: what a whoami costs before any of the service's own work, so the whoami rows can be read as
 * framework + ours.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import pino from 'pino';
import { STRICT_TRANSPORT_SECURITY } from '../../src/http/tls.ts';
import { IDENTITY_EXAMPLE } from '../../src/keys/whoami.routes.ts';

const { TLS_CERT_FILE, TLS_KEY_FILE } = process.env;
if (!TLS_CERT_FILE || !TLS_KEY_FILE) throw new Error('TLS_CERT_FILE and TLS_KEY_FILE are required');
const app = Fastify({
  https: {
    cert: fs.readFileSync(TLS_CERT_FILE, 'utf8'),
    key: fs.readFileSync(TLS_KEY_FILE, 'utf8'),
    minVersion: 'TLSv1.2',
  },
  loggerInstance: pino({ level: 'warn' }),
  genReqId: () => randomUUID(),
  requestIdHeader: false,
});
app.addHook('onRequest', async (request, reply) => {
  reply.header('x-request-id', request.id);
  reply.header('strict-transport-security', STRICT_TRANSPORT_SECURITY);
  reply.header('x-ratelimit-limit', '600');
  reply.header('x-ratelimit-remaining', '599');
  reply.header('x-ratelimit-reset', new Date().toISOString());
});
app.addHook('onSend', async (_request, _reply, payload) => payload);
app.addHook('onResponse', async () => {});
app.get('/api/v1/auth/whoami', async () => IDENTITY_EXAMPLE);
await app.listen({ port: 0, host: '127.0.0.1' });
process.stderr.write(
  `floor listening on https://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1\n`,
);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
