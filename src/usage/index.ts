export { registerUsageCounting } from './usage.hooks.ts';
export type { KeyDayCount, UsageService } from './usage.service.ts';
export { createUsageService } from './usage.service.ts';
