export { outboundCallReports } from './call-reports.ts';
export { createCallbackDelivery } from './callback-delivery.ts';
export { createCallbackSecrets } from './callback-signing.ts';
export { dryRunAlias } from './dry-run-alias.ts';
export { registerCreateOutboundCall, registerDryRunOutboundCall } from './outbound.routes.ts';
export { outboundCallBody } from './outbound.schema.ts';
export { createOutboundService } from './outbound.service.ts';
export { recordSettledSpend } from './settled-spend.ts';
export { ledgeredCalls, spendByCall, spendByKeyAndDay } from './spend-reads.ts';
