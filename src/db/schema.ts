import type { AssistantAgentsTable } from './tables/assistant-agents.table.ts';
import type { AssistantsTable } from './tables/assistants.table.ts';
import type { CallsTable } from './tables/calls.table.ts';
import type { CustomersTable } from './tables/customers.table.ts';
import type {
  DashboardSessionsTable,
  DashboardUsersTable,
  KeyUsageDailyTable,
} from './tables/dashboard.table.ts';
import type { DeletedCallsTable } from './tables/deleted-calls.table.ts';
import type { EventsTable } from './tables/events.table.ts';
import type { ApiKeySecretsTable, ApiKeysTable, AuthFailuresTable } from './tables/keys.table.ts';
import type { CallInsightsTable, CallLifecycleTable } from './tables/lifecycle.table.ts';
import type {
  CallbackNotificationsTable,
  CallbackSecretsTable,
  IdempotencyKeysTable,
  SpendDaysTable,
  SpendReservationsTable,
} from './tables/outbound.table.ts';
import type { ServerSecretFingerprintTable } from './tables/server-secret.table.ts';
import type { SimulatorCallsTable, SimulatorMessagesTable } from './tables/simulator.table.ts';
import type { SmsMessagesTable, SmsOptOutsTable, SmsStatusHistoryTable } from './tables/sms.table.ts';
import type { TranscriptJobsTable } from './tables/transcript-jobs.table.ts';
import type { TranscriptsTable } from './tables/transcripts.table.ts';
import type {
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookSubscriptionsTable,
} from './tables/webhooks.table.ts';

/** The whole schema as Kysely sees it; each table's type lives beside its module. */
export interface DB {
  customers: CustomersTable;
  api_keys: ApiKeysTable;
  api_key_secrets: ApiKeySecretsTable;
  auth_failures: AuthFailuresTable;
  assistants: AssistantsTable;
  assistant_agents: AssistantAgentsTable;
  calls: CallsTable;
  deleted_calls: DeletedCallsTable;
  events: EventsTable;
  // Provider, outbound calls, transcripts
  call_lifecycle: CallLifecycleTable;
  call_insights: CallInsightsTable;
  idempotency_keys: IdempotencyKeysTable;
  spend_reservations: SpendReservationsTable;
  spend_days: SpendDaysTable;
  callback_notifications: CallbackNotificationsTable;
  callback_secrets: CallbackSecretsTable;
  transcripts: TranscriptsTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  transcript_jobs: TranscriptJobsTable;
  simulator_calls: SimulatorCallsTable;
  simulator_messages: SimulatorMessagesTable;
  // Text messages
  sms_messages: SmsMessagesTable;
  sms_status_history: SmsStatusHistoryTable;
  sms_opt_outs: SmsOptOutsTable;
  server_secret_fingerprint: ServerSecretFingerprintTable;
  // Dashboard
  dashboard_users: DashboardUsersTable;
  dashboard_sessions: DashboardSessionsTable;
  key_usage_daily: KeyUsageDailyTable;
}
