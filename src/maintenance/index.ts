export type { CallRetentionReport } from './call-retention.ts';
export { purgeExpiredCalls, startCallRetention } from './call-retention.ts';
export { autovacuumRuns, QUEUE_TABLES, startOwnVacuum } from './own-vacuum.ts';
export { purgeExpired } from './retention.ts';
