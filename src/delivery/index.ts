export type { SenderNetwork, SendResult, WebhookSender } from './http-sender.ts';
export { createWebhookSender, TIMEOUT_ERROR } from './http-sender.ts';
export { nextAttemptDelayMs } from './retry-schedule.ts';
export {
  newWebhookSecret,
  signPayload,
  signStandardWebhook,
  standardWebhookKey,
  unixSeconds,
} from './signature.ts';
export type { TargetPolicy } from './target-url.ts';
export { checkTargetUrl, invalidTargetInput, relaxedPolicyWarning, TARGET_URL_MAX } from './target-url.ts';
