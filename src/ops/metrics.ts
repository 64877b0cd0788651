import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { ProviderObserver } from '../provider/index.ts';

/**
 * Prometheus metrics. Labels never carry customer ids or key prefixes: cardinality stays bounded and
 * the scrape endpoint leaks nothing about tenants.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['route', 'method'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests refused by a rate-limit window, by code (which bucket)',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  const authFailures = new Counter({
    name: 'auth_failures_total',
    help: 'Failed authentications by code',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  const webhookAttempts = new Counter({
    name: 'webhook_attempts_total',
    help: 'Webhook delivery attempts by result',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const webhookDisables = new Counter({
    name: 'webhook_auto_disables_total',
    help: 'Subscriptions disabled by consecutive failures or 410 Gone',
    registers: [registry],
  });
  const providerRequests = new Counter({
    name: 'provider_requests_total',
    help: 'Requests to the voice provider (ElevenLabs) by operation and outcome',
    labelNames: ['operation', 'outcome'] as const,
    registers: [registry],
  });
  const providerDrift = new Counter({
    name: 'provider_answer_drift_total',
    help: 'Provider answers the SDK refused for their shape and we read with our own model, by operation',
    labelNames: ['operation'] as const,
    registers: [registry],
  });
  const reconciliations = new Counter({
    name: 'provider_reconciliations_total',
    help: 'Provider reconciliation passes (timed-out placements, unreported conversations) by result',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const provider: ProviderObserver = {
    request: (operation, outcome) => providerRequests.inc({ operation, outcome }),
    drift: (operation) => providerDrift.inc({ operation }),
    reconciliation: (result) => reconciliations.inc({ result }),
  };
  return {
    registry,
    /** What the provider reports of its requests and passes. */
    provider,
    observeRequest(
      route: string,
      method: string,
      status: number,
      seconds: number,
      problemCode: string | null,
    ) {
      requests.inc({ route, method, status: String(status) });
      latency.observe({ route, method }, seconds);
      if (problemCode?.startsWith('rate.') || problemCode === 'auth.throttled')
        rateLimited.inc({ code: problemCode });
      if (problemCode?.startsWith('auth.')) authFailures.inc({ code: problemCode });
    },
    observeWebhookAttempt(outcome: { ok: boolean; disabled: boolean }) {
      webhookAttempts.inc({ result: outcome.ok ? 'delivered' : 'failed' });
      if (outcome.disabled) webhookDisables.inc();
    },
    /** A gauge read at scrape time (e.g. outbox depth from the database). */
    gauge(name: string, help: string, read: () => Promise<number>) {
      new Gauge({
        name,
        help,
        registers: [registry],
        async collect() {
          this.set(await read());
        },
      });
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
