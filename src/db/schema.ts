import type { AssistantsTable } from '../assistants/assistants.table.ts';
import type { CallsTable } from '../calls/calls.table.ts';
import type { CustomersTable } from '../customers/customers.table.ts';
import type {
  DashboardSessionsTable,
  DashboardUsersTable,
  KeyUsageDailyTable,
} from '../dashboard/dashboard.table.ts';
import type { EventsTable } from '../events/events.table.ts';
import type { ApiKeySecretsTable, ApiKeysTable, AuthFailuresTable } from '../keys/keys.table.ts';
import type { CallInsightsTable, CallLifecycleTable } from '../lifecycle/lifecycle.table.ts';
import type {
  CallbackNotificationsTable,
  CallbackSecretsTable,
  IdempotencyKeysTable,
  SpendReservationsTable,
} from '../outbound/outbound.table.ts';
import type { TranscriptsTable } from '../transcripts/transcripts.table.ts';
import type { TranscriptJobsTable } from '../webhooks/transcript-jobs.table.ts';
import type {
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookSubscriptionsTable,
} from '../webhooks/webhooks.table.ts';

/** The whole schema as Kysely sees it; each table's type lives beside its module. */
export interface DB {
  customers: CustomersTable;
  api_keys: ApiKeysTable;
  api_key_secrets: ApiKeySecretsTable;
  auth_failures: AuthFailuresTable;
  assistants: AssistantsTable;
  calls: CallsTable;
  events: EventsTable;
  // Provider, outbound calls, transcripts (issue 4)
  call_lifecycle: CallLifecycleTable;
  call_insights: CallInsightsTable;
  idempotency_keys: IdempotencyKeysTable;
  spend_reservations: SpendReservationsTable;
  callback_notifications: CallbackNotificationsTable;
  callback_secrets: CallbackSecretsTable;
  transcripts: TranscriptsTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  transcript_jobs: TranscriptJobsTable;
  // Dashboard (issue 6)
  dashboard_users: DashboardUsersTable;
  dashboard_sessions: DashboardSessionsTable;
  key_usage_daily: KeyUsageDailyTable;
}
