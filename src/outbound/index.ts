export { outboundCallReports } from './call-reports.ts';
export { createCallbackDelivery } from './callback-delivery.ts';
export { createCallbackSecrets } from './callback-signing.ts';
export type { AssistantInfo, Check } from './checks.ts';
export { assistantCheck, failed, numberChecks, pass, spendCheck, throwFirstFailure } from './checks.ts';
export { dryRunAlias } from './dry-run-alias.ts';
export {
  complete as completeIdempotencyKey,
  markFailed as failIdempotencyKey,
} from './idempotency.repository.ts';
export {
  claimIdempotencyKey,
  parseIdempotencyKey,
  purgeExpiredIdempotencyKeys,
  requestHash,
} from './idempotency.ts';
export { registerCreateOutboundCall, registerDryRunOutboundCall } from './outbound.routes.ts';
export {
  assistantIdField,
  e164Number,
  externalId,
  metadata,
  optional,
  outboundCallBody,
} from './outbound.schema.ts';
export { createOutboundService } from './outbound.service.ts';
export { recordSettledSpend } from './settled-spend.ts';
export {
  insertMessageReservation,
  removeMessageReservation,
  settleMessageReservation,
  spentOnDay,
} from './spend.repository.ts';
export { ledgeredCalls, spendByCall, spendByKeyAndDay } from './spend-reads.ts';
