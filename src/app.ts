import { maxHeaderSize } from 'node:http';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import { registerGuard } from './access/index.ts';
import type { Clock } from './clock.ts';
import type { DashboardSettings } from './dashboard/index.ts';
import { registerDashboard } from './dashboard/index.ts';
import {
  API_PREFIX,
  clientErrorHandler,
  connectHandler,
  connectionDrain,
  onFrameworkError,
  registerApiNotFound,
  registerErrorHandling,
  routeRegistry,
  zodValidatorCompiler,
} from './http/index.ts';
import { newUuid } from './ids.ts';
import { registerOpenApi, registerOpenApiDocument, registerReferencePage } from './openapi/index.ts';
import type { Metrics, ReadinessProbe } from './ops/index.ts';
import { registerOpsRoutes } from './ops/index.ts';
import { dryRunAlias } from './outbound/index.ts';
import type { RateLimiter } from './rate-limit/index.ts';
import { registerApiRoutes } from './routes.ts';
import type { Services } from './services.ts';
import { registerUsageCounting } from './usage/index.ts';
import { webhookOperations } from './webhooks/index.ts';

export type AppOptions = {
  services: Services;
  limiter: RateLimiter;
  clock: Clock;
  logger: Logger;
  tls: { key: string; cert: string };
  trustedProxies: string[];
  bodyLimitBytes: number;
  authFailuresPerMinutePerIp: number;
  authFailuresPerMinutePerPrefix: number;
  probesPerMinutePerIp: number;
  metrics: Metrics;
  readinessProbes: ReadinessProbe[];
  /** Dashboard session lifetimes and sign-in throttles; defaults when absent (see docs/dashboard.md). */
  dashboard?: Partial<DashboardSettings>;
  /** Tests only: hooks added before any route is registered (see src/openapi/response-check.ts). */
  instrument?: (app: FastifyInstance) => void;
};

/** Builds the whole HTTPS application from injected dependencies; `server.ts` only listens. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: options.logger,
    // One access-log line per request is written by the onResponse hook below, with our fields.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    // A request without Host is answered by the guard, as a problem with a request id, not by Node's bare 400.
    https: { ...options.tls, minVersion: 'TLSv1.2', requireHostHeader: false },
    genReqId: () => newUuid(),
    requestIdHeader: false,
    trustProxy: options.trustedProxies.length > 0 ? options.trustedProxies : false,
    bodyLimit: options.bodyLimitBytes,
    // A path segment of any length Node's parser lets through (the whole request head is capped at
    // http.maxHeaderSize) reaches the guard like any other: the key is checked before the id is read.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: maxHeaderSize },
    // `POST /outbound-calls?dry_run=true` is the earlier form of `POST /outbound-calls/dry-run`: routed there.
    rewriteUrl: (req) => dryRunAlias(req.method, req.url ?? '/'),
    // While stopping, the guard answers 503 as a problem (Fastify's own is bare JSON without a request id).
    return503OnClosing: false,
    frameworkErrors: onFrameworkError,
    clientErrorHandler: clientErrorHandler(options.logger),
  }) as unknown as FastifyInstance;

  app.server.on('connect', connectHandler(options.logger));
  // Stopping: idle connections close at once (Node), slow ones after a bound; requests being answered finish.
  const drain = connectionDrain(app.server);
  app.addHook('preClose', async () => drain.stop());
  app.setValidatorCompiler(zodValidatorCompiler);
  // Response schemas document the API (OpenAPI) and are checked by tests; at run time we send JSON as built.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  const allowedMethods = routeRegistry(app);
  registerErrorHandling(app, allowedMethods);
  registerGuard(app, {
    authenticator: options.services.authenticator,
    limiter: options.limiter,
    clock: options.clock,
    authFailuresPerMinutePerIp: options.authFailuresPerMinutePerIp,
    authFailuresPerMinutePerPrefix: options.authFailuresPerMinutePerPrefix,
    probesPerMinutePerIp: options.probesPerMinutePerIp,
    stopping: () => drain.stopping,
  });

  // Test-only instruments (e.g. the response-schema check), before any route so they see every one.
  options.instrument?.(app);
  // OpenAPI: collects every route registered after it; served at /api/v1/openapi.json and rendered at /docs.
  await registerOpenApi(app, webhookOperations());

  app.addHook('onResponse', async (request, reply) => {
    options.metrics.observeRequest(
      request.routeOptions.url ?? 'unmatched',
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
      request.problemCode,
    );
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? null,
        status: reply.statusCode,
        latency_ms: Math.round(reply.elapsedTime * 100) / 100,
        key_prefix: request.principal?.keyPrefix ?? null,
        customer_id: request.principal?.customerId ?? null,
        code: request.problemCode,
      },
      'request',
    );
  });

  // Metering: API requests per key, counted whatever else is registered.
  registerUsageCounting(app, options.services.usage);
  // Customer dashboard under /dashboard (and `/` redirects there).
  await registerDashboard(app, {
    services: options.services,
    limiter: options.limiter,
    clock: options.clock,
    settings: options.dashboard,
  });
  registerOpsRoutes(app, options.readinessProbes, options.metrics, options.services.providerStatus);
  // The provider's own webhooks (PROVIDER=elevenlabs): outside /api/v1, signed by the provider, not keyed.
  const { elevenlabs } = options.services;
  if (elevenlabs) {
    elevenlabs.registerWebhook(app, { limiter: options.limiter, lifecycle: options.services.lifecycle });
  }
  // SMS_PROVIDER=twilio: its status and inbound-message callbacks, signed with the auth token.
  const { twilio, sms } = options.services;
  twilio?.registerWebhooks(app, { limiter: options.limiter, inbox: sms.inbox('twilio') });
  registerReferencePage(app);
  await app.register(
    async (api) => {
      registerApiNotFound(api, allowedMethods);
      registerApiRoutes(api, options.services);
      registerOpenApiDocument(api);
    },
    { prefix: API_PREFIX },
  );
  return app;
}
