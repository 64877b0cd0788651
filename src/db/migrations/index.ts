import type { Migration } from 'kysely/migration';
import * as foundation from './20261121_0001_foundation.ts';
import * as events from './20261121_0002_events.ts';
import * as callsAssistantDirectionIdx from './20261121_0010_calls_assistant_direction_idx.ts';
import * as providerOutboundTranscripts from './20261121_0020_provider_outbound_transcripts.ts';
import * as webhooks from './20261121_0030_webhooks.ts';
import * as transcriptJobs from './20261121_0031_transcript_jobs.ts';
import * as dashboard from './20261121_0040_dashboard.ts';
import * as webhookDeliveriesPendingOnce from './20261121_0050_webhook_deliveries_pending_once.ts';
import * as webhookFailureCountedAt from './20261123_0060_webhook_failure_counted_at.ts';
import * as assistantAgents from './20261123_0070_assistant_agents.ts';
import * as simulatorCalls from './20261123_0080_simulator_calls.ts';
import * as webhookAttemptResponseExcerpt from './20261123_0090_webhook_attempt_response_excerpt.ts';
import * as outboxAutovacuum from './20261123_0100_outbox_autovacuum.ts';
import * as deliveriesDueBySubscription from './20261125_0110_deliveries_due_by_subscription.ts';
import * as deliveriesFillfactor from './20261126_0100_deliveries_fillfactor.ts';
import * as refusedTargetErrors from './20261126_0120_refused_target_errors.ts';
import * as customerOutboundLimits from './20261126_0130_customer_outbound_limits.ts';
import * as serverSecretFingerprint from './20261126_0300_server_secret_fingerprint.ts';
import * as testMode from './20261126_0400_test_mode.ts';
import * as dashboardTestView from './20261126_0410_dashboard_test_view.ts';
import * as sms from './20261127_0500_sms.ts';
import * as callsSearch from './20261127_0600_calls_search.ts';
import * as callDataLifecycle from './20261127_0700_call_data_lifecycle.ts';
import * as spendDays from './20261129_0800_spend_days.ts';
import * as outboxClaimPlan from './20261129_0900_outbox_claim_plan.ts';
import * as timeOrderedOutboxIds from './20261130_1000_time_ordered_outbox_ids.ts';

/** Every migration, by name; names sort in the order they run. */
export const migrations: Record<string, Migration> = {
  '20261121_0001_foundation': foundation,
  '20261121_0002_events': events,
  '20261121_0010_calls_assistant_direction_idx': callsAssistantDirectionIdx,
  '20261121_0020_provider_outbound_transcripts': providerOutboundTranscripts,
  '20261121_0030_webhooks': webhooks,
  '20261121_0031_transcript_jobs': transcriptJobs,
  '20261121_0040_dashboard': dashboard,
  '20261121_0050_webhook_deliveries_pending_once': webhookDeliveriesPendingOnce,
  '20261123_0060_webhook_failure_counted_at': webhookFailureCountedAt,
  '20261123_0070_assistant_agents': assistantAgents,
  '20261123_0080_simulator_calls': simulatorCalls,
  '20261123_0090_webhook_attempt_response_excerpt': webhookAttemptResponseExcerpt,
  '20261123_0100_outbox_autovacuum': outboxAutovacuum,
  '20261125_0110_deliveries_due_by_subscription': deliveriesDueBySubscription,
  '20261126_0100_deliveries_fillfactor': deliveriesFillfactor,
  '20261126_0120_refused_target_errors': refusedTargetErrors,
  '20261126_0130_customer_outbound_limits': customerOutboundLimits,
  '20261126_0300_server_secret_fingerprint': serverSecretFingerprint,
  '20261126_0400_test_mode': testMode,
  '20261126_0410_dashboard_test_view': dashboardTestView,
  '20261127_0500_sms': sms,
  '20261127_0600_calls_search': callsSearch,
  '20261127_0700_call_data_lifecycle': callDataLifecycle,
  '20261129_0800_spend_days': spendDays,
  '20261129_0900_outbox_claim_plan': outboxClaimPlan,
  '20261130_1000_time_ordered_outbox_ids': timeOrderedOutboxIds,
};
