export type { CallRetentionReport } from './call-retention.ts';
export { purgeExpiredCalls, startCallRetention } from './call-retention.ts';
export { startEmbeddedVacuum } from './embedded-vacuum.ts';
export { purgeExpired } from './retention.ts';
