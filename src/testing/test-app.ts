import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { Writable } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { Agent, type buildConnector, request } from 'undici';
import { buildApp } from '../app.ts';
import { type Clock, ManualClock } from '../clock.ts';
import { loadConfig } from '../config.ts';
import { createSecretBox } from '../crypto/secret-box.ts';
import type { DashboardSettings } from '../dashboard/context.ts';
import type { Database } from '../db/database.ts';
import type { Notifications } from '../db/notifications.ts';
import type { SenderNetwork } from '../delivery/http-sender.ts';
import { makeSelfSignedCertificate } from '../http/tls.ts';
import { createKeyHasher } from '../keys/key-hash.ts';
import { SCOPES } from '../keys/scopes.ts';
import { createLogger } from '../logger.ts';
import { checkResponses, type ResponseMismatch } from '../openapi/response-check.ts';
import { createMetrics } from '../ops/metrics.ts';
import { databaseProbe, type ReadinessProbe } from '../ops/readiness.ts';
import type { OutboundLimits } from '../outbound-limits.ts';
import type { RateLimiter } from '../rate-limit/interface.ts';
import { createMemoryLimiter } from '../rate-limit/memory.ts';
import { type CoreDeps, createServices, type ProviderChoice, type Services } from '../services.ts';
import { createSigner } from '../signer.ts';
import { testDatabase } from './test-database.ts';

export type TestResponse = {
  status: number;
  headers: Record<string, string>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are asserted field by field
  body: any;
};

export type RequestOptions = {
  key?: string;
  /** Source address on the loopback range (e.g. 127.0.0.2), to act as another client IP. */
  localAddress?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
};

export type TestApp = {
  url: string;
  /** The PEM certificate the server presents (self-signed), for clients that must trust it. */
  cert: string;
  app: FastifyInstance;
  db: Database;
  services: Services;
  clock: ManualClock;
  /** Every log line the app wrote, for tests that check what is (not) logged. */
  logs: string[];
  /**
   * Responses that did not match the schema their route documents (OpenAPI), not yet reported.
   * `request()` throws for its own; `close()` throws for any left (e.g. from other HTTP clients).
   */
  responseMismatches: ResponseMismatch[];
  /** Every route the app registered (HEAD included), in order, for tests that check the route table. */
  routes: RouteOptions[];
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  close(): Promise<void>;
};

export type TestAppOptions = {
  /** The upstream provider (PROVIDER); the simulator unless said. */
  provider?: ProviderChoice;
  /** SMS_PROVIDER=twilio's settings (a fake Twilio's address), the carrier timeout; the simulator unless said. */
  sms?: CoreDeps['sms'];
  clock?: ManualClock;
  limiter?: RateLimiter;
  rotationGraceSeconds?: number;
  authFailuresPerMinutePerIp?: number;
  authFailuresPerMinutePerPrefix?: number;
  probesPerMinutePerIp?: number;
  /** Webhook target policy; tests deliver to loopback receivers, so both are allowed unless said. */
  webhooks?: {
    maxPerCustomer?: number;
    /** WEBHOOK_TIMEOUT_MS of the app's own sends (dashboard test events); 5 s unless said. */
    timeoutMs?: number;
    allowHttpTargets?: boolean;
    allowPrivateTargets?: boolean;
    /**
     * How the app's own sends (dashboard test events) reach receivers: a resolver and a route from a
     * checked public address to a loopback receiver let a test deliver under the production policy.
     */
    network?: SenderNetwork;
  };
  trustedProxies?: string[];
  bodyLimitBytes?: number;
  serverSecret?: string;
  /** The notifications the app's key cache listens to (default: the test database's own). */
  notifications?: Notifications;
  /** OUTBOUND_COUNTRIES_DEFAULT and OUTBOUND_MAX_DAILY_CAP_DEFAULT (default: the production defaults). */
  outboundDefaults?: OutboundLimits;
  /** CALL_RETENTION_DAYS_* (default: the production defaults, calls kept for ever). */
  callRetention?: CoreDeps['callRetention'];
  /** Extra routes or hooks, registered before the app listens (e.g. a route that fails on purpose). */
  register?: (app: FastifyInstance) => void;
  readinessProbes?: ReadinessProbe[];
  /** TEST_MODE (default on, as in production). */
  testMode?: boolean;
  /** Dashboard session lifetimes and sign-in throttles (defaults otherwise). */
  dashboard?: Partial<DashboardSettings>;
  /**
   * Check every /api/v1 response against the schema its route documents (default on): a mismatch
   * fails the request that produced it (see src/openapi/response-check.ts).
   */
  checkResponses?: boolean;
};

const describeMismatch = (m: ResponseMismatch, body: string): string =>
  `${m.method} ${m.url} answered ${m.status}, which does not match its documented response schema ` +
  `(src/openapi): ${m.problem}${body ? `\nBody: ${body.slice(0, 500)}` : ''}`;

const production = loadConfig({});
/** What an operator who sets no OUTBOUND_* variable runs with. */
export const PRODUCTION_OUTBOUND_DEFAULTS: OutboundLimits = {
  countries: production.outboundCountriesDefault,
  maxDailyCapUsd: production.outboundMaxDailyCapDefault,
};

let certificate: Promise<{ key: string; cert: string }> | null = null;

/** The self-signed certificate every test server in this process presents (the test app, HTTPS receivers). */
export function testCertificate(): Promise<{ key: string; cert: string }> {
  certificate ??= makeSelfSignedCertificate();
  return certificate;
}

/** The real app over real HTTPS on an ephemeral loopback port, with an injected clock. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const tls = await testCertificate();
  const database = await testDatabase();
  const { db } = database;
  const clock = options.clock ?? new ManualClock(new Date());
  const logs: string[] = [];
  const logger = createLogger(
    'info',
    new Writable({
      write(chunk, _enc, done) {
        logs.push(String(chunk));
        done();
      },
    }),
  );
  const serverSecret = options.serverSecret ?? 'test-server-secret-0123456789abcdef';
  const metrics = createMetrics();
  const services = createServices({
    db,
    provider: options.provider,
    sms: options.sms,
    providerObserver: metrics.provider,
    testMode: options.testMode ?? true,
    // Each test app is its own provider account: its clock drives only its own simulated calls.
    simulatorAccount: randomUUID(),
    notifications: options.notifications ?? database.notifications,
    clock: clock as Clock,
    hasher: createKeyHasher(serverSecret),
    signer: createSigner(serverSecret),
    secretBox: createSecretBox(serverSecret),
    webhooks: {
      maxPerCustomer: options.webhooks?.maxPerCustomer ?? 25,
      allowHttpTargets: options.webhooks?.allowHttpTargets ?? true,
      allowPrivateTargets: options.webhooks?.allowPrivateTargets ?? true,
      secretRotationGraceSeconds: 3600,
      timeoutMs: options.webhooks?.timeoutMs ?? 5_000,
      network: options.webhooks?.network,
    },
    logger,
    rotationGraceSeconds: options.rotationGraceSeconds ?? 3600,
    defaultRateLimit: 60,
    defaultKeyRateLimit: 60,
    outboundDefaults: options.outboundDefaults ?? PRODUCTION_OUTBOUND_DEFAULTS,
    callRetention: options.callRetention,
  });
  const limiter = options.limiter ?? createMemoryLimiter();
  const responseMismatches: ResponseMismatch[] = [];
  const routes: RouteOptions[] = [];
  const app = await buildApp({
    services,
    limiter,
    clock,
    logger,
    tls,
    trustedProxies: options.trustedProxies ?? [],
    bodyLimitBytes: options.bodyLimitBytes ?? 64 * 1024,
    authFailuresPerMinutePerIp: options.authFailuresPerMinutePerIp ?? 1_000_000,
    authFailuresPerMinutePerPrefix: options.authFailuresPerMinutePerPrefix ?? 1_000_000,
    probesPerMinutePerIp: options.probesPerMinutePerIp ?? 1_000_000,
    metrics,
    readinessProbes: [databaseProbe(db), ...(options.readinessProbes ?? [])],
    dashboard: { testMode: options.testMode ?? true, ...options.dashboard },
    instrument: (a: FastifyInstance) => {
      a.addHook('onRoute', (route) => void routes.push(route));
      if (options.checkResponses !== false) checkResponses(a, (m) => responseMismatches.push(m));
    },
  });
  options.register?.(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `https://127.0.0.1:${port}`;
  const dispatchers = new Map<string, Agent>();
  const dispatcherFor = (localAddress = '127.0.0.1') => {
    let agent = dispatchers.get(localAddress);
    if (!agent) {
      agent = new Agent({ connect: loopbackConnector(tls.cert, localAddress) });
      dispatchers.set(localAddress, agent);
    }
    return agent;
  };

  return {
    url,
    cert: tls.cert,
    app,
    db,
    services,
    clock,
    logs,
    responseMismatches,
    routes,
    async request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.key !== undefined) headers.authorization = `Bearer ${opts.key}`;
      let body: string | undefined = opts.rawBody;
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await request(url + path, {
        method: method as 'GET',
        headers,
        body,
        dispatcher: dispatcherFor(opts.localAddress),
      });
      const text = await res.body.text();
      const flat = Object.fromEntries(
        Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]),
      );
      let parsed: unknown = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = null;
      }
      const index = responseMismatches.findIndex((m) => m.requestId === flat['x-request-id']);
      const [mismatch] = index >= 0 ? responseMismatches.splice(index, 1) : [];
      if (mismatch) throw new Error(describeMismatch(mismatch, text));
      return { status: res.statusCode, headers: flat, text, body: parsed };
    },
    async close() {
      await app.close();
      await Promise.all([...dispatchers.values()].map((d) => d.close()));
      await limiter.close();
      const left = responseMismatches.splice(0);
      if (left.length > 0) throw new Error(left.map((m) => describeMismatch(m, '')).join('\n'));
    },
  };
}

export type TestCustomer = {
  customerId: string;
  keyId: string;
  key: string;
};

let counter = 0;

/** A fresh customer with one key (every grantable scope unless told otherwise). */
export async function newCustomer(
  t: Pick<TestApp, 'services'>,
  options: {
    scopes?: readonly string[];
    rateLimitPerMinute?: number;
    keyRateLimitPerMinute?: number;
    name?: string;
  } = {},
): Promise<TestCustomer> {
  counter += 1;
  const customer = await t.services.customers.createCustomer({
    name: options.name ?? `Customer ${counter}`,
    ...(options.rateLimitPerMinute ? { rateLimitPerMinute: options.rateLimitPerMinute } : {}),
  });
  const { key, secret } = await t.services.keys.createKey({
    customerId: customer.id,
    name: `key ${counter}`,
    scopes: options.scopes ?? SCOPES,
    ...(options.keyRateLimitPerMinute ? { rateLimitPerMinute: options.keyRateLimitPerMinute } : {}),
  });
  return { customerId: customer.id, keyId: key.id, key: secret };
}

/** undici ignores `localAddress` in its connect options, so tests that act as another IP dial themselves. */
export function loopbackConnector(ca: string, localAddress: string): buildConnector.connector {
  return (options, callback) => {
    const port = Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
    const raw = net.connect({ host: options.hostname, port, localAddress });
    const socket =
      options.protocol === 'https:' ? tlsConnect({ socket: raw, ca, servername: 'localhost' }) : raw;
    socket.once(options.protocol === 'https:' ? 'secureConnect' : 'connect', () => callback(null, socket));
    socket.once('error', (error) => callback(error, null));
    return socket;
  };
}
