import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { RateLimiter } from '../rate-limit/index.ts';
import type { SmsInbox, SmsProvider, SmsResult } from '../sms/index.ts';
import type { TwilioNumber } from './answers.ts';
import { createChecks, type TwilioCheck } from './check.ts';
import { createTwilioClient } from './client.ts';
import { createTwilioProvider } from './provider.ts';
import { createRequests } from './requests.ts';
import { registerTwilioWebhooks } from './webhook.routes.ts';

export type { TwilioNumber } from './answers.ts';
export type { TwilioCheck } from './check.ts';
export { statusCallbackUrl } from './provider.ts';
export { WEBHOOK_BODY_LIMIT_BYTES, WEBHOOKS_PER_MINUTE_PER_IP } from './webhook.routes.ts';
export { SMS_INBOUND_PATH, SMS_STATUS_PATH } from './webhook-paths.ts';

export type TwilioSettings = {
  accountSid: string;
  authToken: string;
  /** Send through this Messaging Service (MG…) rather than from the assistant's number. */
  messagingServiceSid?: string | undefined;
  /** Twilio's REST API, or a proxy or a test fake in front of it (TWILIO_API_BASE_URL). */
  apiBaseUrl: string;
  /** Where Twilio reaches us (PUBLIC_BASE_URL), with a proxy's path prefix: callbacks go there, signed for it. */
  publicBaseUrl: string;
};

export type TwilioDeps = { settings: TwilioSettings; clock: Clock; logger: Logger; timeoutMs: number };

export type Twilio = {
  provider: SmsProvider;
  /** The status and inbound callbacks, outside /api/v1 (docs/provider-twilio.md). */
  registerWebhooks(app: FastifyInstance, deps: { limiter: RateLimiter; inbox: SmsInbox }): void;
  /** For `provider check`: does Twilio answer our credentials, and which numbers can text. */
  check(): Promise<TwilioCheck>;
  /** The account's incoming numbers and whether each can text. */
  numbers(): Promise<SmsResult<TwilioNumber[]>>;
};

/**
 * Twilio Programmable Messaging behind the SMS provider interface. Made once per process: it holds the one SDK
 * client (made on first use, with its pool of connections).
 */
export function createTwilio(deps: TwilioDeps): Twilio {
  const { clock, logger, timeoutMs } = deps;
  const settings = {
    ...deps.settings,
    apiBaseUrl: deps.settings.apiBaseUrl.replace(/\/+$/, ''),
    publicBaseUrl: deps.settings.publicBaseUrl.replace(/\/+$/, ''),
  };
  const client = createTwilioClient({ ...settings, timeoutMs });
  const requests = createRequests({ client, authToken: settings.authToken, timeoutMs, clock, logger });
  const checks = createChecks(requests, settings.accountSid);
  return {
    provider: createTwilioProvider(requests, settings, clock),
    registerWebhooks: (app, { limiter, inbox }) =>
      registerTwilioWebhooks(app, {
        authToken: settings.authToken,
        publicBaseUrl: settings.publicBaseUrl,
        clock,
        limiter,
        inbox,
      }),
    check: checks.check,
    numbers: checks.numbers,
  };
}
