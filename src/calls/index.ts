export type { ApplyOutcome } from './apply-event.ts';
export {
  billableSeconds,
  costUnits,
  ESTIMATE_UNITS,
  formatUsd,
  MAX_CALL_SECONDS,
  toUnits,
} from './billing.ts';
export { processAllDue, startCallLoops } from './call-loops.ts';
export type { CallReports } from './call-reports.ts';
export { reportingTo } from './call-reports.ts';
export { destinationsOf, outboundCallsSince } from './call-stats.ts';
export { CALL_STATUSES, isTerminal } from './call-status.ts';
export { callFilterQuery } from './calls.filter.ts';
export { listCallsQuery } from './calls.query.ts';
export { findCallForTranscript } from './calls.read.repository.ts';
export { insertCalls, insertCallsSelected, markHasTranscript } from './calls.repository.ts';
export { registerGetCall, registerListCalls } from './calls.routes.ts';
export type { CallsService } from './calls.service.ts';
export { createCallsService } from './calls.service.ts';
export type { CallDetailView, CallView } from './calls.views.ts';
export { callDetailSchema } from './calls.views.ts';
export { EXPORT_BATCH, exportCalls } from './calls-export.ts';
export { registerDeleteCall } from './delete-call.routes.ts';
export type { CallRemoval } from './delete-call.ts';
export { createCallRemoval, RETENTION_BATCH, TOMBSTONE_DAYS } from './delete-call.ts';
export { takeEventSequences } from './event-sequence.ts';
export { callInsights, insightsOfCalls } from './insight-reads.ts';
export { callIdForProviderCall, findCall } from './lifecycle.repository.ts';
export type { LifecycleService } from './lifecycle.service.ts';
export { createLifecycleService } from './lifecycle.service.ts';
export { CALL_COLUMNS, createCall, newCallRow } from './new-call.ts';
export { lockPlacedCall, recordProviderCall, removeUnplacedCall } from './placed-call.ts';
export {
  applyProviderEvents,
  knowsProviderCall,
  recordLateProviderCall,
  unconfirmedPlacements,
} from './provider-calls.ts';
