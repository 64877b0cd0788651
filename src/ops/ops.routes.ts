import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/index.ts';
import type { ProviderStatus } from '../provider/index.ts';
import type { Metrics } from './metrics.ts';
import type { ReadinessProbe } from './readiness.ts';

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T> =>
  Promise.race([
    p,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms).unref()),
  ]);

/**
 * Outside /api/v1 and unauthenticated: liveness, readiness of every dependency, Prometheus metrics. The provider is
 * named with its last periodic check; a provider that fails is a warning, not unreadiness: every instance reaches
 * it alike, so taking one out of the balancer helps nobody (as with the outbox backlog).
 */
export function registerOpsRoutes(
  app: FastifyInstance,
  probes: ReadinessProbe[],
  metrics: Metrics,
  provider: ProviderStatus,
): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const results = await Promise.all(
      probes.map(async (p) => {
        try {
          await withTimeout(p.check(), 2_000);
          return [p.name, 'ok'] as const;
        } catch (error) {
          return [p.name, error instanceof Error ? error.message : 'failed'] as const;
        }
      }),
    );
    const checks = Object.fromEntries(results);
    const failing = results.filter(([, r]) => r !== 'ok').map(([n]) => n);
    if (failing.length > 0) {
      throw new AppError('service.unavailable', `Not ready: ${failing.join(', ')} unreachable.`);
    }
    const warnings = probes.flatMap((p) => {
      const warning = p.warning?.();
      return warning ? [[p.name, warning] as const] : [];
    });
    const providerWarning = provider.warning();
    if (providerWarning) warnings.push(['provider', providerWarning]);
    return reply.send({
      status: 'ready',
      provider: provider.current(),
      checks,
      ...(warnings.length > 0 ? { warnings: Object.fromEntries(warnings) } : {}),
    });
  });

  app.get('/metrics', async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
