import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import { dashboardSettingsFromConfig } from './dashboard/index.ts';
import { clientErrorHandler, connectHandler, loadTls } from './http/index.ts';
import { databaseProbe, type ReadinessProbe, redisProbe } from './ops/index.ts';
import type { Runtime } from './runtime.ts';

export type RunningServer = {
  app: FastifyInstance;
  url: string;
  plainUrl: string | null;
  close(): Promise<void>;
};

/** Listens: HTTPS always, and optionally a plain-HTTP port that only trusted TLS proxies may use. */
export async function startServer(
  runtime: Runtime,
  extraProbes: ReadinessProbe[] = [],
): Promise<RunningServer> {
  const { config } = runtime;
  const tls = await loadTls({
    certFile: config.tlsCertFile,
    keyFile: config.tlsKeyFile,
    dataDir: config.dataDir,
  });
  const app = await buildApp({
    services: runtime.services,
    limiter: runtime.limiter,
    clock: runtime.clock,
    logger: runtime.logger,
    tls,
    trustedProxies: config.trustedProxies,
    bodyLimitBytes: config.bodyLimitBytes,
    authFailuresPerMinutePerIp: config.authFailuresPerMinutePerIp,
    authFailuresPerMinutePerPrefix: config.authFailuresPerMinutePerPrefix,
    metrics: runtime.metrics,
    dashboard: dashboardSettingsFromConfig(config),
    readinessProbes: [
      databaseProbe(runtime.database.db),
      ...(runtime.redis ? [redisProbe(runtime.redis)] : []),
      ...extraProbes,
    ],
    probesPerMinutePerIp: config.probesPerMinutePerIp,
  });
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = config.baseUrl ?? `https://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;

  let plain: http.Server | null = null;
  let plainUrl: string | null = null;
  if (config.httpPort !== undefined) {
    const p = createPlainListener(app);
    plain = p;
    await new Promise<void>((resolve) => p.listen(config.httpPort, config.host, resolve));
    const a = plain.address();
    plainUrl = `http://${host}:${typeof a === 'object' && a ? a.port : config.httpPort}`;
  }

  return {
    app,
    url,
    plainUrl,
    async close() {
      plain?.close();
      await app.close();
    },
  };
}

/** Plain HTTP into the same routes and hooks; the guard refuses anything that did not arrive over TLS. */
export function createPlainListener(app: FastifyInstance): http.Server {
  return http
    .createServer({ requireHostHeader: false }, (req, res) => app.routing(req, res))
    .on('clientError', clientErrorHandler(app.log))
    .on('connect', connectHandler(app.log));
}
