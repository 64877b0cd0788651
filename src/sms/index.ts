export { guardSmsProvider } from './guarded-sms.ts';
export { MAX_SEGMENTS, measureBody } from './segments.ts';
export { registerSmsRoutes } from './sms.routes.ts';
export { sendSmsBody } from './sms.schema.ts';
export type { SmsService } from './sms.service.ts';
export { createSmsService } from './sms.service.ts';
export type { MessageView } from './sms.views.ts';
export type {
  InboundSms,
  SendSmsRequest,
  SentSms,
  SmsDeliveryStatus,
  SmsInbox,
  SmsProvider,
  SmsProviderError,
  SmsRefusal,
  SmsResult,
  SmsStatusReport,
} from './sms-provider.ts';
export { startSmsReconcileLoop } from './sms-reconcile.ts';
