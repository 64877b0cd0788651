export type { CallRetentionReport } from './call-retention.ts';
export { purgeExpiredCalls, startCallRetention } from './call-retention.ts';
export { startOwnVacuum } from './own-vacuum.ts';
export { purgeExpired } from './retention.ts';
