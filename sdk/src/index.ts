export {
  type ApiResponse,
  type ClientOptions,
  type FetchLike,
  paginate,
  type RequestOptions,
  VoiceCallsClient,
} from './client.ts';
export { ProblemError, type ProblemIssue } from './errors.ts';
export { RETRY_DEFAULTS, type RetryOptions } from './retry.ts';
export type * from './types.ts';
export {
  type SecretsBySubscription,
  type VerifyOptions,
  verifyWebhook,
  type WebhookFailure,
  type WebhookHeaders,
  WebhookVerificationError,
} from './webhooks.ts';
