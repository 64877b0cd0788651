export type { DashboardSettings } from './context.ts';
export { createDashboardServices } from './dashboard.services.ts';
export { seedDemoUser } from './demo-user.ts';
export { dashboardSettingsFromConfig, registerDashboard } from './plugin.ts';
export { firstUserEmail } from './user-reads.ts';
