export type { Metrics } from './metrics.ts';
export { createMetrics } from './metrics.ts';
export { registerOpsRoutes } from './ops.routes.ts';
export { createBacklogWatch } from './outbox-backlog.ts';
export type { ReadinessProbe } from './readiness.ts';
export { databaseProbe, redisProbe } from './readiness.ts';
