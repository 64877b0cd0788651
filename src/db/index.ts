export { type BackgroundLane, createBackgroundLane } from './background-lane.ts';
export { lockDataDir } from './data-dir-lock.ts';
export type { Database, DatabaseHandle } from './database.ts';
export { isDatabaseUnavailable, openDatabase } from './database.ts';
export { claimable, claimOldestDue, leaseRows } from './lease-claim.ts';
export { migrateToLatest } from './migrate.ts';
export type { Notifications } from './notifications.ts';
export { notify, notifying } from './notifications.ts';
export { prepare } from './prepared.ts';
export { keepNewFilesPrivate, makePrivate } from './private-data-dir.ts';
export { SCHEMA_TEMPLATE_FILE } from './schema-template.ts';
export { asNamedStatement } from './statement-names.ts';
export type {
  AgentPhoneNumbers,
  AgentTelephony,
  AssistantAgentRow,
} from './tables/assistant-agents.table.ts';
export type { AssistantRow } from './tables/assistants.table.ts';
export type { CallDirection, CallRow, CallsTable, NewCall } from './tables/calls.table.ts';
export type { CustomerRow } from './tables/customers.table.ts';
export type { DashboardSessionRow, DashboardUserRow } from './tables/dashboard.table.ts';
export type { EventRow, EventType } from './tables/events.table.ts';
export { EVENT_TYPES } from './tables/events.table.ts';
export type { ApiKeyRow, KeyMode } from './tables/keys.table.ts';
export type { CallLifecycleRow, CallLifecycleTable } from './tables/lifecycle.table.ts';
export type { CallbackNotificationRow, IdempotencyRow } from './tables/outbound.table.ts';
export type { SimulatorCallRow } from './tables/simulator.table.ts';
export type { SmsMessageRow, SmsStatus } from './tables/sms.table.ts';
export type {
  DeliveryRow,
  DeliveryStatus,
  SubscriptionRow,
  WebhookSubscriptionsTable,
} from './tables/webhooks.table.ts';
export { createWriteBehind } from './write-behind.ts';
